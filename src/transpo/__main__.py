"""``python -m transpo``: the same as the ``transpo`` command."""

import sys

from transpo.cli import main

if __name__ == "__main__":
    sys.exit(main())
