"""The device buffers of notebook 05's pipeline (``pipeline.py``): the buffers the learner's
function allocates and the copies it queues, watched while it runs (a copy that does not fit the
buffer it goes into or comes out of is refused before it is made: a GPU would write or read past
the buffer, unseen), a launch given its buffers the wrong way round, and buffers that chunks of
different streams share."""

from __future__ import annotations

import contextlib
import itertools

import numpy as np

from helpers.exercises.function import Refused, copies_noted


def address(buf) -> int | None:
    """The device address of a DeviceAllocation, a GPUArray (or a view of one) or an int; None
    for anything else."""
    try:
        return int(getattr(buf, "gpudata", buf))
    except (TypeError, ValueError):
        return None


@contextlib.contextmanager
def buffers_watched(drv, n: int, n_chunks: int, made: list | None = None):
    """While in use, the driver's mem_alloc and asynchronous copies as the learner's function
    finds them: each allocation's (address, bytes) noted, each copy as ``copies_noted`` notes
    it, and one that would not fit the allocation it starts in refused (``_does_not_fit``).
    Gives the copies' list; the allocations go into ``made`` (a list of the caller's, if given)."""
    made, mem_alloc, count = [] if made is None else made, drv.mem_alloc, {"htod": 0, "dtoh": 0}

    def noting(nbytes, *args, **kwargs):
        buf = mem_alloc(nbytes, *args, **kwargs)
        made.append((int(buf), int(nbytes)))
        return buf

    def check(copy):
        way, host, _, device = copy
        _does_not_fit(way, count[way], host, address(device), made, -(-n // n_chunks))
        count[way] += 1

    drv.mem_alloc = noting
    try:
        with copies_noted(drv, check) as copies:
            yield copies
    finally:
        drv.mem_alloc = mem_alloc


def _does_not_fit(way, c, host, at, made, chunk):
    """Refuse chunk ``c``'s copy of ``host`` (way "htod": in; "dtoh": back) at device address
    ``at`` where it runs past the end of the allocation of ``made`` it starts in: named as a
    buffer allocated with the chunk's elements for its bytes where its size is that count."""
    host = np.asarray(host)
    start, size = _allocation_at(made, at)
    if start is None or at - start + host.nbytes <= size:
        return
    copy = f"chunk {c}'s copy {'in' if way == 'htod' else 'back'}"
    if at == start and size in (chunk, host.size) and size < host.nbytes:
        raise Refused((f"{copy}, {host.nbytes} bytes ({host.size} float32), does not fit its "
                       f"device buffer of {size} bytes: drv.mem_alloc was given the chunk's "
                       f"{size} elements, where it takes bytes", f"allocate chunk * "
                       f"{host.itemsize} bytes: drv.mem_alloc(chunk * h_in.itemsize)"))
    raise Refused((f"{copy}, {host.nbytes} bytes at byte {at - start} of its device buffer, "
                   f"runs past the buffer's end ({size} bytes)", "each buffer holds one chunk, "
                   "drv.mem_alloc(chunk * h_in.itemsize) bytes, and chunk c's copies are of "
                   "h_in[lo:hi] and h_out[lo:hi], hi = min(n, lo + chunk)"))


def _allocation_at(made, at):
    """(start, bytes) of the allocation of ``made`` that address ``at`` lies in; (None, 0) for
    none."""
    return next(((s, z) for s, z in made if at is not None and s <= at < s + z), (None, 0))


def launch_fits(call, c, made, n, n_chunks):
    """Refuse chunk ``c``'s launch ``call`` (input address, output address, count, stream) where
    count is more than the allocation of ``made`` that its input or output starts in holds from
    there (float32): the kernel would read or write past the buffer, which a GPU may not tell."""
    for k, name in ((0, "d_in"), (1, "d_out")):
        start, size = _allocation_at(made, call[k])
        room = None if start is None else (start + size - call[k]) // 4
        if room is not None and call[2] > room:
            whole = " (n, the whole array's length)" if call[2] == n else ""
            chunk = " (the chunk's)" if room == -(-n // n_chunks) else ""
            raise Refused((f"chunk {c}'s launch was given count = {call[2]}{whole}, where its "
                           f"buffers hold {room} elements{chunk}: the kernel would run "
                           f"past the end of {name}", "count is the chunk's own length: "
                           "launch(d_in, d_out, hi - lo, s)"))


def swapped(calls, copies):
    """Launches given (d_out, d_in): each kernel read the buffer a copy back comes out of, and
    wrote the one the chunk was copied into."""
    into = {address(d) for way, _, _, d in copies if way == "htod"}
    out_of = {address(d) for way, _, _, d in copies if way == "dtoh"}
    if calls and all(c[1] in into and c[0] in out_of and c[0] not in into for c in calls):
        yield ("launch was given its buffers the wrong way round, (d_out, d_in): each kernel read "
               "the buffer its results are copied back from and wrote over the chunk copied in, "
               "so h_out got what d_out held before", "launch(d_in, d_out, hi - lo, s): first "
               "the buffer the chunk was copied into, then the one copied back from")


def shared_buffers(calls) -> str | None:
    """'input' or 'output' if two calls on different streams touch overlapping device memory."""
    return next((name for k, name in ((0, "input"), (1, "output"))
                 for a, b in itertools.combinations(calls, 2)
                 if a[3] is not b[3] and a[k] < b[k] + 4 * b[2] and b[k] < a[k] + 4 * a[2]), None)


def union_bytes(spans) -> int:
    """Total bytes covered by (address, nbytes) spans, overlaps counted once."""
    total = end = 0
    for start, nbytes in sorted(spans):
        total += max(0, start + nbytes - max(start, end))
        end = max(end, start + nbytes)
    return total
