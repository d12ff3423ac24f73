"""The tables of what is allocated, by start address (``AddressTable``: device memory's
blocks, page-locked host memory's spans), and their lock, for tables that the garbage
collector's finalizers change.

Python runs its garbage collector, and with it the finalizers of what it collects (a
DeviceAllocation's ``__del__``, a page-locked buffer's ``weakref.finalize``), in whatever thread
happens to be running: where an object is made and, since Python 3.12, after almost any call. A
finalizer that frees memory changes the tables of what is allocated. Run in the middle of a
lookup or a change of those tables by the same thread, between a binary search and the use of
the index it found, it pulls the tables out from under it: on the H200 machine's Python 3.12 a
launch's check of its pointers failed with an IndexError that way (``memory.find``). A plain
lock would make the finalizer wait for its own thread for ever; a re-entrant one lets it in.

So a change that arrives while its own thread holds the lock (a finalizer run inside) waits in a
queue, and that thread makes it when it lets go of the lock. Other threads wait for the lock as
usual.
"""

from __future__ import annotations

import bisect
import collections
import threading


class TableLock:
    """``with lock:`` around every lookup and change of the tables; ``lock.change(fn, *args)``
    for a change that a finalizer may make (freeing memory)."""

    def __init__(self):
        self._lock = threading.RLock()
        self._owner = None   # the thread that holds the lock; set and cleared only by it
        self._depth = 0      # how many times it holds it
        self._queued = collections.deque()

    def __enter__(self):
        self._lock.acquire()
        self._depth += 1
        self._owner = threading.get_ident()
        return self

    def __exit__(self, *exc):
        try:
            while self._depth == 1 and self._queued:
                change, args = self._queued.popleft()
                try:
                    change(*args)
                except Exception:  # noqa: BLE001 - a finalizer's change: as __del__ ignores it
                    pass
        finally:
            self._depth -= 1
            if not self._depth:
                self._owner = None
            self._lock.release()

    def change(self, fn, *args):
        """fn(*args) with the lock held: now, or, where this thread holds it already (a finalizer
        run in the middle of a lookup), once this thread lets go of it."""
        if self._owner == threading.get_ident():
            self._queued.append((fn, args))
            return
        with self:
            fn(*args)


class AddressTable:
    """Values by start address, kept in order, so that the one whose start is the last at or
    below an address is a binary search away; ``lock`` (a TableLock) around every lookup and
    change (a finalizer's removal: ``forget``)."""

    def __init__(self):
        self.lock = TableLock()
        self._starts = []   # sorted
        self._values = {}   # start -> value

    def __len__(self):
        return len(self._values)

    def __contains__(self, start):
        return start in self._values

    def values(self) -> list:
        with self.lock:
            return list(self._values.values())

    def add(self, start, value):
        """Put ``value`` at ``start`` (in place of the one there, if any)."""
        with self.lock:
            if start not in self._values:
                bisect.insort(self._starts, start)
            self._values[start] = value

    def pop(self, start):
        """Take the value at ``start`` out, with the lock held: the value, or None."""
        value = self._values.pop(start, None)
        if value is not None:
            del self._starts[bisect.bisect_left(self._starts, start)]  # not remove(): a scan
        return value

    def forget(self, start):
        """``pop(start)`` from a finalizer: now, or once this thread lets go of the lock."""
        self.lock.change(self.pop, start)

    def at_or_below(self, address):
        """The value whose start is the last at or below ``address``, or None."""
        with self.lock:
            i = bisect.bisect(self._starts, address) - 1
            return self._values[self._starts[i]] if i >= 0 else None

    def around(self, address) -> list:
        """The values of the two starts at or below ``address`` and of the first above it."""
        with self.lock:
            i = bisect.bisect(self._starts, address)
            return [self._values[self._starts[j]] for j in (i - 2, i - 1, i)
                    if 0 <= j < len(self._starts)]
