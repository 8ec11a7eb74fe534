import sys

from lib.app.cli import main

sys.exit(main())
