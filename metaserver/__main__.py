"""``python -m metaserver``: the command line, for when the script is not on PATH."""

import sys

from metaserver.cli import main

sys.exit(main())
