"""``python -m paperpilot.cli``: the same as the ``paperpilot`` command."""

import sys

from .main import main

sys.exit(main())
