"""Time bounds for the tests that check responsiveness, scaled to how busy the machine is.

The bounds are set for an idle machine (CI: 2 cores, nothing else running). On a machine whose
cores are shared with other work every bound grows by the load per core, so a loaded machine
tests the same behaviour (work off the GUI thread, a Stop that ends a request at once) without
failing on scheduling delays. The targets themselves are measured by tests/bench.
"""

from __future__ import annotations

import os


def load_factor() -> float:
    """The 1-minute load average per core, at least 1 (1 on an idle machine)."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        return 1.0
    return max(1.0, load / (os.cpu_count() or 1))


def bound(value: float) -> float:
    """``value`` (milliseconds or seconds) for an idle machine, scaled to this one's load."""
    return value * load_factor()
