"""``python -m lib``: the command line (lib/app/cli.py)."""
import sys

from lib.app.cli import main

sys.exit(main())
