"""``python -m articula``: the command line (:mod:`articula.sim.cli`: the core's commands and
``simulate``)."""

import sys

from .sim.cli import main

sys.exit(main())
