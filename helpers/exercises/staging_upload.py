"""Checker for the double-buffering exercise of notebook 05: the learner's ``my_upload(h, d,
staging, streams)`` uploads the pageable array ``h`` into the device buffer ``d`` through two
page-locked staging buffers, chunk c through ``staging[c % 2]`` on ``streams[c % 2]``, so that the
host fills one buffer while the other one's copy runs, and returns once ``d`` holds all of ``h``.

``check_staging_upload(my_upload)`` runs it on sizes that are not a multiple of the chunk, ``d``
and a chunk of guard zone after it filled with NaN. The usual mistake, refilling a staging buffer
before its last copy has run, often goes unseen on a GPU, whose copies are quick: there the
checker first queues a kernel that keeps each stream busy for ``function.HOLD_MS`` (a copy
queued behind it waits, as behind a long computation: ``function.hold_streams``); the simulator
runs queued work only when the host waits, which holds copies back the same way. Then a refilled
buffer's copy carries a later chunk, and the verdict names it, as it names a function that
returned before its copies were done, a write past the end of ``d`` (the last chunk is
shorter), and byte offsets counted as elements.
On a GPU the held streams are not enough: the learner's own wait for a stream lets its hold
run out before the first copy is queued, and a copy of a few megabytes is over before Python
refills its buffer (the H200, 2026-12-02: refilling without a wait, and one staging buffer for
both streams, both passed). So on a GPU a function the GPU found right runs once more on the
simulator (``_on_the_simulator``: its ``drv`` the simulator's), where a queued copy waits until
the host waits, and the buffer refilled too early shows whatever the GPU's timing. A function
that reaches PyCUDA by another name than the global ``drv`` (its own import, ``cuda.``) cannot be
moved there, nor can one that the simulator's objects make fail: the GPU's run then stands.
A copy queued before its buffer was filled is named, whatever the timing, from what the buffer
held when the copy was queued and at the host's next call (``staging_upload_filling.Queued``).
"""

from __future__ import annotations

import sys

import numpy as np

from helpers.exercises import hidden as hidden_cases
from helpers.exercises.function import (Refused, check_function, hold_streams, pointer_added,
                                        run_catching, source_first)
from helpers.exercises.learner_code import told_uncalled
from helpers.exercises.staging_upload_filling import (Queued, filled_after_queued, not_staged,
                                                     noting_context, noting_events)
from helpers.exercises.staging_upload_polls import (asked_not_waited, noting_streams,
                                                   one_way_only, stream_queried,
                                                   waited_after_its_copy)
from helpers.exercises.staging_upload_models import (at_element_offsets, at_elements,
                                                    at_the_chunk_ends, at_the_start_of_d,
                                                    chunk_in_bytes, chunk_too_long, context_waited,
                                                    default_stream,
                                                    end_without_lo, event_before_its_copy,
                                                    filled_whole, last_at_its_length, max_for_min,
                                                    one_stream_waited, sliced_at_lo,
                                                    waited_for_both_each_chunk, waits_skipped)
from helpers.exercises.verdict import Verdict, check_cases

CASES = [(300_007, 1 << 15), (50_000, (1 << 14) + 12)]  # (n, chunk) in float32 elements
def draw(rng):  # the grader's: several chunks, the last one shorter
    chunk = int(rng.integers(1 << 10, 1 << 14)) * 4
    return [(chunk * int(rng.integers(3, 9)) + int(rng.integers(1, chunk)), chunk)]


def check_staging_upload(fn, hidden: int | None = None) -> Verdict:
    """Run ``fn(h, d, staging, streams)`` on a few sizes (and those drawn from the seed
    ``hidden``); print and return the Verdict."""
    cases = hidden_cases.cases(CASES, draw, hidden)
    return check_function(fn, "my_upload", lambda fn: check_cases(
        cases, lambda case: _mistakes_anywhere(fn, case),
        lambda case: "n = {:,}, chunk = {:,}".format(*_scaled(case)),
        hidden_cases.success(f"d holds h after every upload tried ({len(CASES)} sizes, the last "
                             "chunk shorter), each staging buffer refilled only once its copy "
                             "had run, even behind streams kept busy", CASES, cases)))


def _mistakes_anywhere(fn, case):
    """The mistakes of one run on this backend; on a GPU, where there are none, those of a run
    on the simulator, named as such."""
    from helpers.backend import BACKEND, drv

    found = False
    for mistake in _mistakes(fn, *_scaled(case), drv):
        found = True
        yield mistake
    if BACKEND != "simulator" and not found and _reads_global_drv(fn):
        from helpers.sim import driver

        try:
            mistakes = list(_mistakes(_on_the_simulator(fn, driver), *case, driver, catch=False))
        except Exception:  # noqa: BLE001 - it ran right on the GPU: the simulator's objects
            mistakes = []  # failed it (PyCUDA reached by another name too), not the learner
        for problem, hint in mistakes:
            yield "run on the simulator, where a queued copy waits for the host: " + problem, hint


def _reads_global_drv(fn):
    """Whether ``fn`` calls the driver through the global name ``drv``, as the notebook's cell
    does (not through an import of its own, which _on_the_simulator cannot replace)."""
    code = getattr(fn, "__code__", None)
    return code is not None and "drv" in code.co_names and "drv" not in code.co_varnames


def _on_the_simulator(fn, driver):
    """``fn`` with ``driver`` (the simulator's, or one that notes its copies) as its ``drv`` (the
    name the notebook's cell uses)."""
    import types

    return types.FunctionType(fn.__code__, {**fn.__globals__, "drv": driver}, fn.__name__,
                              fn.__defaults__, fn.__closure__)


class _Copies:
    """A driver that notes the host arrays its asynchronous copies to the device copy from, and
    in ``log``, in order, each copy (``("copy", its stream)``, ``("blocking", None)`` for a
    memcpy_htod), each wait for or question to a stream the checker made (``noting_streams``) or
    wait for the context (``noting_context``), and in ``queued`` what each copy's source held when queued and
    at the next of these calls. Given ``d`` (its address, its bytes with the guard after it, and
    the chunk), a copy that would run past its end is refused (``_past_d``): a GPU would write
    what lies after it. Given ``fn``, a copy given source first is refused (``source_first``)."""

    def __init__(self, drv, d=None, fn=None):
        self._drv, self.sources, self.log, self.d, self.places = drv, [], [], d, []
        self.queued, self.check = Queued(), source_first(fn, drv) if fn else None
        self.Event = noting_events(drv, self.log, self.queued)
        self.Context = noting_context(drv, self.log, self.queued)

    def __getattr__(self, name):
        return getattr(self._drv, name)

    def memcpy_htod_async(self, dest, src, *args, **kwargs):
        if self.check:
            self.check(("htod", src, None, dest))
        if self.d is not None:
            _past_d(dest, src, len(self.sources), *self.d)
            self.places.append(_place(dest, src, self.d[0]))
        self.sources.append(src)
        self.queued.queued(src, sys._getframe(1))  # the line that queued it: the caller's
        self.log.append(("copy", args[0] if args else kwargs.get("stream")))
        return self._drv.memcpy_htod_async(dest, src, *args, **kwargs)

    def memcpy_htod(self, dest, src, *args, **kwargs):
        self.log.append(("blocking", None))
        self.queued.settle()
        return self._drv.memcpy_htod(dest, src, *args, **kwargs)


def _place(dest, src, start):  # (byte offset in d, bytes) of a copy, None where not an address
    try:
        return int(dest) - start, np.asarray(src).nbytes
    except (TypeError, ValueError):
        return None


def _past_d(dest, src, c, start, size, chunk):
    """Refuse the copy of chunk ``c`` (the c-th copy) into ``dest`` where it would end past the
    ``size`` bytes of d from ``start``: named as d's address multiplied with lo ((int(d) + lo)
    * k), else by the bytes an element its offset counts."""
    try:
        offset, nbytes = int(dest) - start, np.asarray(src).nbytes
    except (TypeError, ValueError):
        return                  # not an address: the driver tells
    if offset < 0 or offset + nbytes <= size:
        return
    lo = c * chunk
    for k in range(2, 9):   # the parentheses around the address: (int(d) + lo) * k
        if int(dest) == (start + lo) * k:
            raise Refused((f"chunk {c}'s copy: (int(d) + lo) * {k} multiplies the address of "
                           f"d too, not only lo: the whole address times {k} lands at byte "
                           f"{offset:,} of d, far past its end ({size:,} bytes)", "only the element offset counts bytes: int(d) + lo * "
                           "h.itemsize (lo * h.itemsize in parentheses, if any, not int(d) + lo)"))
    if lo and offset % lo == 0 and offset // lo != 4:
        k = offset // lo
        raise Refused((f"chunk {c}'s copy went to byte {offset:,} of d, lo * {k} for its element "
                       f"lo = {lo:,}, and runs past the end of d: {k} bytes an element, where a "
                       "float32 has 4", "a float32 is 4 bytes: element lo is at int(d) + lo * 4 "
                       f"(lo * h.itemsize), not lo * {k}"))
    raise Refused((f"chunk {c}'s copy of {nbytes:,} bytes went to byte {offset:,} of d and runs "
                   f"past its end ({size:,} bytes, a chunk of room after h included)",
                   "element lo of d is at int(d) + lo * 4, and chunk c's copy is buf[:hi - lo], "
                   "hi = min(n, lo + chunk)"))


class _SlicesNoted(np.ndarray):
    """h as the learner's function gets it: the bounds of each slice taken of it noted in
    ``slices``; a slice's result is a plain array."""

    def __getitem__(self, key):
        if isinstance(key, slice) and getattr(self, "slices", None) is not None:
            self.slices.append((key.start, key.stop))
        got = super().__getitem__(key)
        return got.view(np.ndarray) if isinstance(got, np.ndarray) else got


def _sliced_past_n(h, chunk, fn=None):
    """What a ValueError (NumPy's broadcast) shows from the last slice taken of ``h`` (a
    _SlicesNoted): it ran past h's end (the last chunk was not cut short), it was chunk 0 as all
    of h where the code takes hi = max(...) (max_for_min), it was chunk 0 of
    h.itemsize times a buffer's elements (chunk_in_bytes, ``fn``'s line named), or chunk 1,
    whole, the first chunk whose place in h, lo:hi, lies past a staging buffer's ``chunk``
    elements (buf[lo:hi] is empty there: the buffer filled at the chunk's place in h)."""
    def told(err):
        n = h.size
        lo, hi = next(((lo or 0, hi) for lo, hi in reversed(h.slices) if hi is not None), (0, 0))
        lo, hi = int(lo), int(hi)
        if hi > n:
            return (f"the last chunk's h[lo:hi] runs past the end of h, n = {n:,} (h[{lo:,}:"
                    f"{hi:,}]), so it holds {n - lo:,} elements, where buf[:hi - lo] "
                    f"takes {hi - lo:,}", "cut the last chunk short: hi = min(n, lo + "
                    "chunk), so that h[lo:hi] and buf[:hi - lo] are the same length")
        if lo == 0 and hi == n > chunk and (found := max_for_min(fn, n, chunk)):
            return found
        if lo == 0 and hi - lo == chunk * h.itemsize:
            return chunk_in_bytes(fn, hi - lo, chunk, h.itemsize)
        if found := filled_whole(err, lo, hi, chunk) or (
                lo == 0 and chunk_too_long(fn, hi, n, chunk)):
            return found
        if lo == chunk and hi == min(n, 2 * chunk):
            return (f"chunk 1, h[{lo:,}:{hi:,}], went to a slice of its staging buffer that is "
                    f"empty, as buf[lo:hi] is: a staging buffer holds {chunk:,} elements, so "
                    f"buf[{lo:,}:{hi:,}] lies past its end (chunk 0 fitted only because its lo is "
                    "0)", "fill the staging buffer from its start: buf[:hi - lo] = h[lo:hi] "
                    "(the chunk's place in h is lo:hi, in the buffer 0:hi - lo)")
        return None
    return told


class _IndicesNoted(list):
    """staging as the learner's function gets it: each index taken of it noted in ``taken``."""

    def __getitem__(self, key):
        self.taken.append(key)
        return super().__getitem__(key)


def _floor_divided(staging):
    """What an IndexError shows from the indices taken of ``staging`` (an _IndicesNoted): they
    ended 0, 0, 1, 1, 2, chunk c's buffer staging[c // 2], not staging[c % 2]."""
    def told(_err):
        if staging.taken[-5:] != [0, 0, 1, 1, 2]:
            return None
        return ("the buffers were taken two chunks at a time, as c // 2 (floor division) gives: "
                "chunks 0 and 1 got staging[0] (on two streams), chunks 2 and 3 staging[1], and "
                "chunk 4 staging[2], past the two buffers", "take the buffers in turn: buf = "
                "staging[c % 2] (the remainder: 0, 1, 0, 1, ...), as s = streams[c % 2]")
    return told


def _scaled(case):  # on a GPU 16 times larger: a copy there must outlast a Python call or two
    from helpers.backend import BACKEND

    return case if BACKEND == "simulator" else (16 * case[0], 16 * case[1])


def _mistakes(fn, n, chunk, drv, catch=True):
    """Run fn once on fresh buffers of ``drv`` (a driver: PyCUDA's or the simulator's); yield
    each mistake seen, in order, the first told as a wait that never happened where fn's code
    names s.synchronize without calling it. ``catch``: an exception fn raises is a mistake (else
    it is raised)."""
    yield from told_uncalled(fn, _seen(fn, n, chunk, drv, catch))


def _seen(fn, n, chunk, drv, catch):  # _mistakes's, as the run shows them
    h = np.random.default_rng(n).random(n, dtype=np.float32)
    d = drv.mem_alloc((n + chunk) * 4)  # a guard of a chunk after it, for a last chunk too long
    drv.memset_d32(d, 0x7FC00000, n + chunk)  # NaN: h holds none
    staging = _IndicesNoted(drv.pagelocked_empty(chunk, np.float32) for _ in range(2))
    staging.taken = []
    for buf in staging:
        buf[:] = np.nan          # h holds none: a buffer still all NaN was never filled
    copies = _Copies(drv, (int(d), (n + chunk) * 4, chunk), fn)
    streams = noting_streams(drv, copies.log, copies.queued, 2)
    hold_streams(streams, drv)
    learner_s, fn = fn, _on_the_simulator(fn, copies) if _reads_global_drv(fn) else fn
    seen = h.view(_SlicesNoted)
    seen.slices = []
    if not catch:
        fn(seen, d, staging, streams)
    elif (mistake := run_catching(lambda: fn(seen, d, staging, streams),
                                  "follow the TODOs: wait for the stream, fill, queue the copy",
                                  [(ValueError, _sliced_past_n(seen, chunk, learner_s)),
                                   (IndexError, _floor_divided(staging)),
                                   (TypeError, pointer_added(learner_s, 1, d)),
                                   (AttributeError, stream_queried(learner_s, streams))])[0]):
        yield mistake
    copies.queued.settle()  # what the sources hold at the return
    yield from filter(None, [default_stream(copies.log, learner_s), filled_after_queued(
        copies.queued, copies.places, h, chunk, staging, learner_s)])  # whatever the timing
    pending = [i for i, s in enumerate(streams) if not s.is_done()]
    drv.Context.synchronize()
    drv.memcpy_dtoh(back := np.empty(n + chunk, np.float32), d)
    got = back[:n]
    if pending:
        yield from filter(None, [one_stream_waited(copies.log, streams, pending, learner_s)])
        yield ("your function returned while copies were still on their way",
               "wait for both streams before returning (TODO 3)")
    if not np.isnan(back[n:]).all():
        yield from at_the_chunk_ends(copies.places, n, chunk)
        yield ("the copies wrote past the end of d", "the last chunk is shorter: copy "
               "buf[:hi - lo], not the whole staging buffer")
    if np.isnan(got).all():
        yield "d still holds the NaN it was filled with: nothing was copied", (
            "queue each chunk's copy: drv.memcpy_htod_async(int(d) + lo * 4, buf[:hi - lo], s)")
    if np.array_equal(got, h):
        yield from not_staged(staging, copies.sources, learner_s)
        yield from filter(None, [one_way_only(copies.log, streams, staging.taken, chunk,
                                              learner_s)])
        yield from _not_overlapped(copies.log, learner_s)
    else:
        yield from end_without_lo(seen.slices, copies.places, got, h, chunk, learner_s)
        yield from sliced_at_lo(copies.places, got, h, chunk)
        yield from last_at_its_length(copies.places, n, chunk)
        yield from _wrong_chunks(got, h, chunk, copies.log, learner_s)


def _not_overlapped(log, fn):
    """With d right: copies the host waited for before it filled the next chunk, so that no
    filling ran beside a copy, the overlap double buffering is for (``fn``: the learner's)."""
    if not any(what == "copy" for what, _ in log) and ("blocking", None) in log:
        yield ("d holds h, but each copy was drv.memcpy_htod, which returns only once the copy is "
               "done: the host never fills one buffer while the other one's copy runs",
               "queue each copy with drv.memcpy_htod_async(int(d) + lo * 4, buf[:hi - lo], s) "
               "on s = streams[c % 2]")
    yield from filter(None, [context_waited(log, fn)])
    last = None
    for k, (what, stream) in enumerate(log):
        if what == "copy":
            last = stream
        elif what == "wait" and last is not None and stream is last and any(
                other == "copy" for other, _ in log[k + 1:]):
            yield from filter(None, [waited_for_both_each_chunk(log, fn),
                                     waited_after_its_copy(fn)])
            yield ("d holds h, but before filling each chunk the host waited for the copy it had "
                   "just queued (the other stream's): no filling ran beside a copy",
                   "before filling staging[c % 2], wait for streams[c % 2], whose last copy is "
                   "two chunks back, not for the other stream")
            return


def _wrong_chunks(got, h, chunk, log, fn):
    """With d wrong: chunks left out or cut short, copies that carried another filling of their
    buffer (every one, or those whose wait ``log`` shows skipped), offsets in elements; else the
    first chunk that differs."""
    n = h.size
    bounds = [(lo, min(n, lo + chunk)) for lo in range(0, n, chunk)]
    missing = np.isnan(got)
    if missing.any() and np.array_equal(got[~missing], h[~missing]):
        if np.flatnonzero(missing).tolist() == [n - 1]:
            yield (f"the last element of h alone, h[n - 1] = h[{n - 1:,}], was never copied "
                   "(every other element of d is right): the last chunk stopped one short, at n - 1",
                   "h[lo:hi] leaves hi out, so the last chunk's hi is n: hi = min(n, lo + chunk)")
        if set(np.flatnonzero(missing).tolist()) <= {hi - 1 for _, hi in bounds}:
            yield ("the last element of the chunks was never copied: a chunk ends at hi - 1",
                   "chunk c runs from lo to hi = min(n, lo + chunk), hi itself left out")
        if np.array_equal(missing, np.arange(n) >= bounds[-1][0]):
            yield (f"the last chunk (elements {bounds[-1][0]:,} to {n - 1:,}, shorter than the "
                   "others) was never copied", "for lo in range(0, n, chunk): the last chunk is "
                   "whatever is left, min(n, lo + chunk)")
    yield from filter(None, [event_before_its_copy(log, fn), asked_not_waited(log, fn)])
    last, stale = [np.zeros(chunk, np.float32) for _ in range(2)], np.empty_like(h)
    for c, (lo, hi) in enumerate(bounds):  # the buffers as the last chunks filled them
        last[c % 2][:hi - lo] = h[lo:hi]
    for c, (lo, hi) in enumerate(bounds):  # each copy carries its buffer's last filling
        stale[lo:hi] = last[c % 2][:hi - lo]
    if np.array_equal(got, stale):
        yield ("each chunk holds the data of the last chunk that went through its staging buffer: "
               "a buffer was filled again before its copy had run (copies run later, on the "
               "stream)", "before filling staging[c % 2], wait for streams[c % 2]: its last copy "
               "out of that buffer must be done")
    ahead = h.copy()   # each copy carrying its buffer's NEXT filling: filled, then waited
    for c, (lo, hi) in enumerate(bounds[:-2]):
        nlo, nhi = bounds[c + 2]
        ahead[lo:lo + min(hi - lo, nhi - nlo)] = h[nlo:nlo + min(hi - lo, nhi - nlo)]
    if np.array_equal(got, ahead):
        yield ("each chunk holds the data of the chunk two after it: its buffer was filled again "
               "before the wait for its copy (fill, then wait)", "wait first, then fill: "
               "streams[c % 2].synchronize(), then staging[c % 2][:hi - lo] = h[lo:hi]")
    yield from waits_skipped(got, h, bounds, log)
    if at_the_start_of_d(got, h, bounds):
        yield (f"every chunk was copied to the start of d (memcpy_htod_async(d, ...), no offset): "
               f"elements 0 to {chunk - 1:,} hold one chunk over the other, and the rest of d, "
               f"elements {chunk:,} to {n - 1:,}, was never written (it still holds the NaN it "
               "was filled with)", "chunk c goes to element lo of d, lo * h.itemsize bytes past "
               "its start: drv.memcpy_htod_async(int(d) + lo * h.itemsize, buf[:hi - lo], s)")
    if len(bounds) > 1 and at_elements(got, h, bounds, range(len(bounds))):
        yield (f"chunk c was copied to element c of d (int(d) + c * {h.itemsize}): its number, "
               f"where its first element's, lo, belongs, so chunk {len(bounds) - 1} landed "
               f"{len(bounds) - 1} elements in, over chunk 0, and elements "
               f"{len(bounds) - 1 + bounds[0][1]:,} to {n - 1:,} of d were never written",
               "chunk c goes to element lo of d, lo * h.itemsize bytes past its start: "
               "drv.memcpy_htod_async(int(d) + lo * h.itemsize, buf[:hi - lo], s)")
    if at_element_offsets(got, h, bounds):
        yield ("the chunks landed a quarter of the way along: element lo of d was taken to be at "
               "int(d) + lo", "device addresses count bytes: element lo is at int(d) + lo * 4")
    c = next(c for c, (lo, hi) in enumerate(bounds) if not np.array_equal(got[lo:hi], h[lo:hi]))
    yield (f"chunk {c} (elements {bounds[c][0]:,} to {bounds[c][1] - 1:,}) of d differs from h",
           "chunk c goes through staging[c % 2] on streams[c % 2], after waiting for that stream")
