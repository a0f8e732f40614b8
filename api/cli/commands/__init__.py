"""One module per ``mjlens`` sub-command, each with ``register(subparsers)``."""
