"""PaperPilot: a local research assistant with verified citations."""

__version__ = "0.1.0"

from . import accel as _accel

_accel.install()  # the compiled extraction modules, when built and current (see accel.py)
