"""``python -m mjlens``: the ``mjlens`` command line."""

import sys

from mjlens.api.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
