"""The ``mjlens`` command line: ``main`` wires the sub-commands (one module each in ``commands``) and maps failures
to exit codes; ``render`` and ``render_analysis`` print a score, waits and advice in the terminal."""
