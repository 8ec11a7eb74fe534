"""``python -m lib``: the command line (lib/app/cli/: one module per command group)."""
import sys

from lib.app.cli import main

sys.exit(main())
