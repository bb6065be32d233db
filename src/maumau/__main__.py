"""``python -m maumau``: the ``maumau`` command line."""

import sys

from maumau.cli.main import main

sys.exit(main())
