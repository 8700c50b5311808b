"""PaperPilot: a local research assistant with verified citations."""

__version__ = "0.1.0"
