"""The process's memory mappings against Linux's limit (vm.max_map_count, 65,530 on Debian).

Every device array costs the simulator about two mappings (its data and its guard pages,
memory.py) and every simulated thread's stack one or two (stacks.py). Past the limit, mmap fails
wherever it is called next, in the middle of a launch too; so the simulator counts its mappings,
and refuses an array while too few would be left for a launch to start its threads
(LAUNCH_RESERVE).
"""

import threading

_lock = threading.Lock()
LAUNCH_RESERVE = 4096  # mappings kept free for a launch: worker threads, their stacks, the rest


def _read_int(path):
    try:
        with open(path) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


class _Budget:
    """The process's memory mappings against Linux's limit. Counting them (reading
    /proc/self/maps) is slow when there are many, so it is done only when the mappings made since
    the last count could have reached the limit."""

    def __init__(self):
        self.limit = _read_int("/proc/sys/vm/max_map_count")
        self.counted, self.used = 0, 0  # at the last count; made since (an upper bound)

    def count(self):
        try:
            with open("/proc/self/maps", "rb") as f:
                self.counted = f.read().count(b"\n")
        except OSError:
            self.limit = None
        self.used = 0


_budget = _Budget()


def room_for(n, keep=0):
    """True if n more mappings leave at least `keep` (plus a margin) of the system's limit."""
    with _lock:
        if _budget.limit is None:
            return True
        margin = 256
        if _budget.counted + _budget.used + n + keep + margin <= _budget.limit:
            return True
        _budget.count()
        return _budget.counted + n + keep + margin <= _budget.limit


def limit():
    """The most memory mappings the system allows this process, or None where it is not known."""
    return _budget.limit


def note(n):
    """The simulator (memory.py, stacks.py) made n mappings."""
    with _lock:
        _budget.used += max(n, 0)
