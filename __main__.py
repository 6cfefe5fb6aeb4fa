"""``python -m articula``: the command line (:mod:`articula.core.cli`)."""

import sys

from .core.cli import main

sys.exit(main())
