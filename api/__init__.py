"""What users touch, one folder a part: ``service`` (the HTTP API and the web page it serves), ``cli`` (the
``mjlens`` command line), ``labelling`` (``mjlens label`` and its review page) and ``profiles`` (the profiles the
service's clients make of their tile sets)."""
