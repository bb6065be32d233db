"""``python -m maumau``: the ``maumau`` command line."""

import sys

from maumau.cli import main

sys.exit(main())
