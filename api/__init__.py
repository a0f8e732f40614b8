"""What users touch: the HTTP API, the web page it serves, and the ``mjlens`` command line."""
