"""The device buffers of notebook 05's pipeline (``pipeline.py``): the buffers the learner's
function allocates and the copies it queues, watched while it runs (a copy that does not fit the
buffer it goes into or comes out of is refused before it is made: a GPU would write or read past
the buffer, unseen), a launch given its buffers the wrong way round or queued out of order with
its chunk's copies, buffers that chunks of different streams share, and copies that cannot
overlap (the default stream, pageable arrays)."""

from __future__ import annotations

import contextlib
import itertools

import numpy as np

from helpers.exercises.function import Refused, copies_noted
from helpers.exercises.pipeline_copies import address, arguments_swapped
from helpers.exercises.verdict import listed

RTOL, ATOL = 1e-4, 1e-5  # how near h_out must be to NumPy's


@contextlib.contextmanager
def buffers_watched(drv, n: int, n_chunks: int, made: list | None = None, first_use=None):
    """While in use, the driver's mem_alloc and asynchronous copies as the learner's function
    finds them: each allocation's (address, bytes) noted, each copy as ``copies_noted`` notes
    it, its device buffer read as its address when queued (a buffer freed later has none), and
    one that would not fit the allocation it starts in refused (``_does_not_fit``). Gives the
    copies' list; the allocations go into ``made`` (a list of the caller's, if given);
    ``first_use(stream)``, where given, sees each copy's stream before the copy is queued."""
    made, mem_alloc, count = [] if made is None else made, drv.mem_alloc, {"htod": 0, "dtoh": 0}
    copies = []

    def noting(nbytes, *args, **kwargs):
        buf = mem_alloc(nbytes, *args, **kwargs)
        made.append((int(buf), int(nbytes)))
        return buf

    def check(copy):
        way, host, stream, device = copy
        arguments_swapped(way, count[way], host, device)
        if first_use is not None:
            first_use(stream)
        at = address(device)
        _does_not_fit(way, count[way], host, at, made, -(-n // n_chunks))
        count[way] += 1
        copies.append((way, host, stream, at))

    drv.mem_alloc = noting
    try:
        with copies_noted(drv, check):
            yield copies
    finally:
        drv.mem_alloc = mem_alloc


def _does_not_fit(way, c, host, at, made, chunk):
    """Refuse chunk ``c``'s copy of ``host`` (way "htod": in; "dtoh": back) at device address
    ``at`` where it runs past the end of the allocation of ``made`` it starts in: named as a
    buffer allocated with the chunk's elements for its bytes where its size is that count."""
    host = np.asarray(host)
    _at_its_place_in_h(way, c, host, at, made, chunk)
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


def _at_its_place_in_h(way, c, host, at, made, chunk):
    """Refuse chunk ``c``'s copy of ``host`` at device address ``at`` where it is an allocation
    of ``made`` plus lo bytes an element (lo = c * chunk, the chunk's place in h_in) and runs
    past that allocation's end: the offset of a buffer that holds the whole array, given one
    that holds the chunk alone, from its start."""
    lo, size = c * chunk, host.itemsize
    start = next((s for s, z in made if lo and at == s + lo * size and lo * size + host.nbytes > z),
                 None)
    if start is None:
        return
    d, h, copy = ("d_in", "h_in", "in went to") if way == "htod" else ("d_out", "h_out",
                                                                        "back came from")
    z = dict(made)[start]
    args = f"{d}, {h}[lo:hi]" if way == "htod" else f"{h}[lo:hi], {d}"
    raise Refused((f"chunk {c}'s copy {copy} int({d}) + lo * {size}, byte {lo * size} (lo = {lo}) "
                   f"of its device buffer, past its end ({z} bytes): {d} holds chunk {c} alone, "
                   f"from its start, so lo, the chunk's place in {h}, is no offset in {d} (it is "
                   "one in a buffer that holds the whole array)", f"copy the chunk "
                   f"{'to' if way == 'htod' else 'from'} the start of {d}: drv.memcpy_"
                   f"{way}_async({args}, s) (lo:hi picks the chunk out of {h} only)"))


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


def copies_and_launches(calls, copies, order, h_in, got, expected):
    """The mistakes the copies and launches show (``order``: for each launch, how many copies
    were queued before it): the copies in made into d_out, a launch given its buffers the wrong
    way round or queued out of order with its chunk's copies (where the values are wrong), the
    last chunk's end clamped."""
    yield from copied_into_d_out(calls, copies, got, expected)
    if not np.allclose(got, expected, rtol=RTOL, atol=ATOL):
        yield from swapped(calls, copies)
        yield from out_of_order(calls, copies, order, got, expected)
    yield from end_clamped(copies, h_in, got)


def count_one_short(calls, n, n_chunks, got, expected):
    """Every launch told hi - lo - 1 elements (hi read as the last index), nothing else wrong."""
    ends = [(lo, min(n, lo + -(-n // n_chunks))) for lo in range(0, n, -(-n // n_chunks))]
    bad = ~np.isclose(got, expected, rtol=RTOL, atol=ATOL)
    if (not bad.any() or sorted(c[2] for c in calls) != sorted(hi - lo - 1 for lo, hi in ends)
            or not set(np.flatnonzero(bad).tolist()) <= {hi - 1 for _, hi in ends}):
        return
    lo, hi = ends[0]
    yield (f"every launch was told one element fewer than its chunk holds (hi - lo - 1): chunk 0 "
           f"(elements {lo} to {hi - 1}) has {hi - lo} elements, and launch got {hi - lo - 1}, "
           f"so the last element of every chunk was never computed: {int(bad.sum())} elements "
           f"of h_out differ from NumPy, the first at index {int(np.flatnonzero(bad)[0])}",
           "hi is one past the chunk's last element (h_in[lo:hi] leaves it out), so the chunk "
           "holds hi - lo elements: launch(d_in, d_out, hi - lo, s)")


def copied_into_d_out(calls, copies, got, expected):
    """Every chunk's copy in made into the buffer its launch writes (d_out), none into one a
    launch reads (d_in), the copies out made from d_out as they should: the kernels read device
    memory no copy filled, whatever it held. Told from the copies and launches alone (on a GPU
    the d_in never filled may hold anything, even a previous run's right values)."""
    into = {address(d) for way, _, _, d in copies if way == "htod"}
    out_of = {address(d) for way, _, _, d in copies if way == "dtoh"}
    written, read = {c[1] for c in calls}, {c[0] for c in calls}
    if not (calls and into and into <= written and out_of <= written and not into & read):
        return  # (copies out of what launches read: the launches' buffers swapped, not this)
    bad = ~np.isclose(got, expected, rtol=RTOL, atol=ATOL)
    first = int(np.flatnonzero(bad)[0]) if bad.any() else None
    shown = "" if first is None else (
        f": {int(bad.sum())} elements differ from NumPy, the first at index {first}: got "
        f"{got[first]:.7g}, expected {expected[first]:.7g}")
    yield ("every chunk's copy in went to the buffer its launch writes, d_out (the launch's "
           "second buffer), not d_in, the one it reads (drv.memcpy_htod_async(d_out, h_in[lo:hi], "
           "s)): each kernel read a d_in that no copy filled, and wrote over the chunk" + shown,
           "copy each chunk into the buffer the kernel reads: drv.memcpy_htod_async(d_in, "
           "h_in[lo:hi], s), then launch(d_in, d_out, hi - lo, s)")


def shared_buffers(calls) -> str | None:
    """'input' or 'output' if two calls on different streams touch overlapping device memory."""
    return next((name for k, name in ((0, "input"), (1, "output"))
                 for a, b in itertools.combinations(calls, 2)
                 if a[3] is not b[3] and a[k] < b[k] + 4 * b[2] and b[k] < a[k] + 4 * a[2]), None)


def _pair_numbers(calls, made, slot):
    """Each call's buffer in ``slot`` (0 input, 1 output), numbered by its allocation's order
    among those the calls used; None where one lies in no allocation."""
    starts = [a for a, _ in made]
    at = [_allocation_at(made, c[slot])[0] for c in calls]
    used = sorted(set(at), key=starts.index) if None not in at else []
    return [used.index(a) for a in at] if used else None


def picked_modulo_fewer(calls, streams, made, fn):
    """``(what, hint)`` where chunk c ran on streams[c % len(streams)] but used the buffer pair
    c % m, m fewer than the streams (buffers[c % 2] with 3 streams): chunk m, on stream m, used
    stream 0's pair; the line that picks it read from ``fn``'s code where known; None otherwise."""
    k, ids = len(streams), {id(s): j for j, s in enumerate(streams)}
    if len(calls) <= k or [ids.get(id(c[3])) for c in calls] != [c % k for c in range(len(calls))]:
        return None
    for m in range(2, k):
        if _pair_numbers(calls, made, 0) == _pair_numbers(calls, made, 1) == [
                c % m for c in range(len(calls))]:
            name, target, (c, by), line = (_round_pick(fn, "Mod", m) or ("buffers", "d_in, d_out",
                                                                         ("c", str(m)), ""))
            return (f"chunk {m}, on stream {m}, used {name}[0], the pair of stream 0: "
                    f"{name}[{c} % {by}]{line} picks among {m} pairs while the chunks go round "
                    f"{k} streams", f"{target} = {name}[{c} % len(streams)]: the pair "
                    "is picked as the stream is, with the number of streams, not a fixed "
                    f"{m}, so that streams[k] always uses {name}[k]")
    return None


def picked_by_round(calls, streams, made, fn):
    """``(what, hint)`` where chunk c ran on streams[c % len(streams)] but used the buffer pair
    c // len(streams) (the pairs numbered in the order they were allocated), so that the first
    len(streams) chunks, each on another stream, shared one pair: buffers[c // len(streams)]
    where c % len(streams) belongs; the line that picks it read from ``fn``'s code where known;
    None for any other run."""
    k, ids = len(streams), {id(s): j for j, s in enumerate(streams)}
    rounds = [c // k for c in range(len(calls))]
    if (len(calls) <= k or [ids.get(id(c[3])) for c in calls] != [c % k for c in range(len(calls))]
            or _pair_numbers(calls, made, 0) != rounds or _pair_numbers(calls, made, 1) != rounds):
        return None
    name, target, (c, by), line = (_round_pick(fn)
                                   or ("buffers", "d_in, d_out", ("c", "len(streams)"), ""))
    both = "both" if k == 2 else "all"
    return (f"chunks {listed(range(k))}, on streams {listed(range(k))}, {both} "
            f"used {name}[0]{line}: {c} // {by} counts the rounds over the streams, so it "
            f"gives one pair to {k} consecutive chunks, each on another stream",
            f"{target} = {name}[{c} % {by}]: the pair is picked as the stream is, so that "
            f"streams[k] always uses {name}[k] and reuses it only after its own earlier chunks")


def sharing(calls, streams, made, fn):
    """``(what, hint)`` of how chunks on different streams came to share buffers, where a model
    tells: a pair picked by the round (``picked_by_round``), or one pair repeated by list
    multiplication (``one_pair_repeated``); None otherwise."""
    return (picked_by_round(calls, streams, made, fn) or picked_modulo_fewer(calls, streams, made, fn)
            or one_pair_repeated(calls, fn))


def one_pair_repeated(calls, fn):
    """``(what, hint)`` where every chunk, on two or more streams, used one input and one output
    buffer, and ``fn``'s code makes its list of pairs by list multiplication ([(a, b)] * k,
    which repeats the one pair, the same objects, k times); None for any other run (a pair
    picked by the round is ``picked_by_round``'s)."""
    import ast

    from helpers.exercises.learner_code import code_of

    if (len({c[0] for c in calls}) != 1 or len({c[1] for c in calls}) != 1
            or len({id(c[3]) for c in calls}) < 2 or (code := code_of(fn)) is None):
        return None
    for node in ast.walk(code.tree):
        value = getattr(node, "value", None)
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult)):
            continue
        pair, times = ((value.left, value.right) if isinstance(value.left, ast.List)
                       else (value.right, value.left))
        if isinstance(pair, ast.List) and len(pair.elts) == 1:
            name, k = ast.unparse(node.targets[0]), len({id(c[3]) for c in calls})
            return (f"every stream used the same pair of buffers: [(...)] * {ast.unparse(times)} "
                    f"({code.at(node)}) repeats the one pair that was "
                    f"allocated, so {name} holds {k} references to it (a list times k repeats "
                    "the same objects; it allocates nothing more)", "allocate a pair for each "
                    f"stream: {name} = [{ast.unparse(pair.elts[0])} for _ in streams]")
    return None


def _round_pick(fn, op="FloorDiv", by=None):
    """``(list, targets, (left, right), ' (line L of place: text)')`` of the statement of
    ``fn``'s code that assigns a subscript by floor division (d_in, d_out = buffers[c //
    len(streams)]), or by ``op`` (``"Mod"``: buffers[c % 2], the number ``by`` where given),
    or None."""
    import ast

    from helpers.exercises.learner_code import code_of

    if (code := code_of(fn)) is None:
        return None
    for node in ast.walk(code.tree):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.value, ast.Subscript) and isinstance(node.value.value, ast.Name)
                and isinstance(node.value.slice, ast.BinOp)
                and isinstance(node.value.slice.op, getattr(ast, op))
                and (by is None or getattr(node.value.slice.right, "value", None) == by)):
            pick = node.value.slice
            return (node.value.value.id, ast.unparse(node.targets[0]).strip("()"),
                    (ast.unparse(pick.left), ast.unparse(pick.right)),
                    f" ({code.at(node)}: {code.text(node)})")
    return None


def union_bytes(spans) -> int:
    """Total bytes covered by (address, nbytes) spans, overlaps counted once."""
    total = end = 0
    for start, nbytes in sorted(spans):
        total += max(0, start + nbytes - max(start, end))
        end = max(end, start + nbytes)
    return total


def how_copied(copies, h_in, h_out):
    """The values are right: did the copies run on the chunks' streams, straight between the
    page-locked h_in and h_out and the device?"""
    if any(stream is None for _, _, stream, _ in copies):
        yield ("the results are right, but a copy went to the default stream (no stream given), "
               "which waits for every other stream, so it never overlaps their kernels",
               "give every copy its chunk's stream: drv.memcpy_htod_async(d_in, h_in[lo:hi], s)")
    for way, host, name, at in (("htod", h_in, "came from", "h_in[lo:hi]"),
                                ("dtoh", h_out, "went to", "h_out[lo:hi]")):
        if any(w == way and not np.shares_memory(np.asarray(a), host) for w, a, *_ in copies):
            yield (f"the results are right, but a copy {name} an array of your own, not {at}: "
                   "an array NumPy made is pageable, and a copy to or from pageable memory waits "
                   "for the host, so it never overlaps anything",
                   f"copy straight between {at} (page-locked) and the device buffer")


ORDER_HINT = ("on each chunk's stream queue the copy in, the launch and the copy out, in that order: "
              "drv.memcpy_htod_async(d_in, h_in[lo:hi], s), launch(d_in, d_out, hi - lo, s), "
              "drv.memcpy_dtoh_async(h_out[lo:hi], d_out, s)")


def out_of_order(calls, copies, order, got, expected):
    """Launches queued on their stream before their chunk's copy in, or after its copy out
    (``order``: for each launch of ``calls``, how many of ``copies`` were queued before it): the
    kernel read d_in before the chunk arrived, or h_out got d_out before the kernel wrote it."""
    if not calls or len(order) != len(calls):
        return

    def count(k, way, slot, upto):  # launch k's stream's copies of ``way`` on its buffer
        return sum(w == way and s is calls[k][3] and address(d) == calls[k][slot]
                   for w, _, s, d in copies[:upto])

    def rank(k, slot):  # the launches on launch k's buffer and stream before it
        return sum(c[slot] == calls[k][slot] and c[3] is calls[k][3] for c in calls[:k])

    bad = ~np.isclose(got, expected, rtol=RTOL, atol=ATOL)
    first = int(np.flatnonzero(bad)[0]) if bad.any() else 0
    differ = (f"{int(bad.sum())} elements differ from NumPy, the first at index {first}: got "
              f"{got[first]:.7g}, expected {expected[first]:.7g}")
    for slot, way, late, what in (
            (0, "htod", lambda k: count(k, "htod", 0, order[k]) == rank(k, 0)
             < count(k, "htod", 0, len(copies)), "before its copy in: launch(d_in, d_out, hi - "
             "lo, s) came before drv.memcpy_htod_async(d_in, h_in[lo:hi], s), so the kernel read "
             "d_in before the chunk arrived (what it held before: nothing yet for a stream's "
             "first chunk, that stream's previous chunk after that)"),
            (1, "dtoh", lambda k: count(k, "dtoh", 1, order[k]) > rank(k, 1), "after its copy "
             "out: drv.memcpy_dtoh_async(h_out[lo:hi], d_out, s) came before launch(d_in, d_out, "
             "hi - lo, s), so h_out got d_out before the kernel wrote it")):
        chunks = [k for k in range(len(calls)) if late(k)]
        if chunks:
            who = "every chunk's" if len(chunks) == len(calls) else f"chunk {chunks[0]}'s"
            yield f"{who} kernel was queued {what}: {differ}", ORDER_HINT


def _span(view, host):
    """[lo, hi) of ``view`` in ``host`` (a contiguous slice of it), or None where it is not one."""
    view = np.asarray(view)
    if view.ndim != 1 or not np.shares_memory(view, host) or not view.flags.c_contiguous:
        return None
    lo, rest = divmod(view.__array_interface__["data"][0] - host.__array_interface__["data"][0],
                      host.itemsize)
    return None if rest else (lo, lo + view.size)


def end_clamped(copies, h_in, got):
    """The last element of h_out alone never written, and the copies in cover h_in up to n - 1
    and no further, the last of them ending there and cut shorter than the first (a chunk
    rounded down ends there too, whole): its hi clamped to n - 1, min(n - 1, ...)."""
    n = h_in.size
    spans = [_span(a, h_in) for w, a, *_ in copies if w == "htod"]
    if n < 2 or not spans or None in spans or not np.isnan(got[-1]) or np.isnan(got[:-1]).any():
        return
    (lo, hi), first = spans[-1], spans[0][1] - spans[0][0]
    if max(end for _, end in spans) == n - 1 == hi and hi - lo < first and union_bytes(
            [(a, b - a) for a, b in spans]) == n - 1:
        yield (f"the last chunk ends at hi = n - 1 = {n - 1}, so element {n - 1} of h_out was "
               f"never written: hi was clamped with min(n - 1, ...) (h_in[{lo}:{hi}], shorter "
               f"than the chunk of {first}), but hi is one past a chunk's last element", "let the last chunk run to the end: "
               "hi = min(n, lo + chunk), and h_in[lo:n] ends at element n - 1")
