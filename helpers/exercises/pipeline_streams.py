"""Launches of notebook 05's pipeline (``pipeline.py``) queued on another stream than their
chunk's copies, or a copy on another stream than its chunk's launch: read from the streams of
the calls, not from the values, which on a GPU depend on when each stream's work runs; a stream
picked by the round, where the buffers go by the remainder; a return that waited for some of the
streams but not all (``noting_waits``, ``some_streams_waited``, and ``hold_ms``, which keeps the
others running on a GPU); and a loop run over the streams, one chunk each
(``one_chunk_a_stream``)."""

from __future__ import annotations

from helpers.exercises.function import HOLD_MS
from helpers.exercises.pipeline_copies import address
from helpers.exercises.pipeline_models import _pair_numbers, _round_pick
from helpers.exercises.verdict import listed

OWN_STREAM_HINT = ("{what} on the chunk's own stream, the one its {other} use: s = streams[c "
                   "% len(streams)], then drv.memcpy_htod_async(d_in, h_in[lo:hi], s), launch(d_in, "
                   "d_out, hi - lo, s), drv.memcpy_dtoh_async(h_out[lo:hi], d_out, s): a stream "
                   "runs its work in order, so the kernel waits for the copy in and the copy out "
                   "for the kernel")
_OFF = {  # which of a chunk's copy in, kernel and copy out went to another stream: the words
    "kernel": ("kernel was launched", "its copy in and copy out", "the kernel after its chunk's "
               "copy in or before its copy out", "launch", "copies"),
    "copy out": ("copy out was queued", "its copy in and kernel", "the copy out after the "
                 "chunk's kernel", "queue the copy out", "copy in and kernel"),
    "copy in": ("copy in was queued", "its kernel and copy out", "the kernel after the chunk's "
                "copy in", "queue the copy in", "kernel and copy out")}


def launched_off_its_stream(calls, copies, order, streams):
    """Chunks one of whose copy in (the last copy into the launch's input buffer queued before
    it), kernel and copy out (the first copy out of its output buffer queued after it) went to
    one of ``streams``, the other two to another of them (``order``: for each launch of
    ``calls``, how many of ``copies`` were queued before it): nothing orders that one after (or
    before) the rest of its chunk, whatever the values came out as."""
    if not calls or len(order) != len(calls):
        return

    def number(stream):
        return next((i for i, s in enumerate(streams) if s is stream), None)

    off = []
    for k, (d_in, d_out, _, stream) in enumerate(calls):
        into = [s for w, _, s, d in copies[:order[k]] if w == "htod" and address(d) == d_in]
        out = [s for w, _, s, d in copies[order[k]:] if w == "dtoh" and address(d) == d_out]
        used = into and out and [number(into[-1]), number(stream), number(out[0])]
        if used and None not in used and len(set(used)) == 2:
            odd = next(i for i in range(3) if used.count(used[i]) == 1)
            off.append((k, ("copy in", "kernel", "copy out")[odd], used[odd], used[odd - 1]))
    if off:
        k, which, used, own = off[0]
        did, rest, after, what, other = _OFF[which]
        yield (f"chunk {k}'s {did} on streams[{used}], {rest} on streams[{own}] (so for "
               f"{sum(o[1] == which for o in off)} of {len(calls)} chunks): nothing orders "
               f"{after}, since each stream runs its own work in order but not the other "
               "streams'", OWN_STREAM_HINT.format(what=what, other=other))


def _length(err, name):
    """The length of the list ``name`` where ``err`` was raised (the last frame of its
    traceback, the learner's line), or None where it is not known."""
    from helpers.exercises.learner_code import raising_frame

    try:
        return len(raising_frame(err).f_locals[name])
    except (AttributeError, KeyError, TypeError):
        return None


def stream_index(streams, n_chunks):
    """run_catching's hint of an IndexError raised on a line that picks a stream, or a pair of
    buffers, by c modulo the chunk count where len(streams) belongs (streams[c % n_chunks],
    buffers[c % n_chunks]): ``(what was seen, hint)``, or None where the line is unknown or
    picks nothing so."""
    import ast

    from helpers.exercises.learner_code import learner_line

    def told(err):
        line = learner_line(err)
        try:
            tree = ast.parse(line[2].strip()) if line else None
        except SyntaxError:
            return None
        picks = [n for n in ast.walk(tree or ast.Module(body=[], type_ignores=[]))
                 if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)
                 and isinstance(n.slice, ast.BinOp) and isinstance(n.slice.op, ast.Mod)
                 and ast.unparse(n.slice.right) == "n_chunks"]
        picks.sort(key=lambda n: n.value.id != "streams")
        if not picks:
            return None
        name, left, right = picks[0].value.id, ast.unparse(picks[0].slice.left), "n_chunks"
        counts = f"{left} % {right} counts up to {right} - 1 = {n_chunks - 1}, past the last of the "
        if name == "streams":
            return (f"{counts}{len(streams)} streams: the chunk count where the number of "
                    "streams belongs", f"take the chunk's number modulo the number of streams: "
                    f"streams[{left} % len(streams)] (its buffers likewise)")
        size = _length(err, name)
        if size is None:
            return None
        each = ", one per stream" if size == len(streams) else ""
        return (f"{counts}{size} pairs in {name}{each}: the chunk count where the number of "
                "streams belongs", f"pick the pair of the chunk's stream: d_in, d_out = "
                f"{name}[{left} % len(streams)]")
    return told


def hold_ms(stream, streams, n_chunks):
    """How long ``stream`` is held at its first use (``function.stream_holder``): HOLD_MS for the
    last chunk's stream, twice that for streams[-1], the last in the list, three times for the
    others, so that a return that waited for one of those two alone finds the others running."""
    if stream is streams[(n_chunks - 1) % len(streams)]:
        return HOLD_MS
    return HOLD_MS * (2 if stream is streams[-1] else 3)


def noting_waits(driver, count, calls):
    """``count`` streams of ``driver`` and the list their synchronize() calls go into, each as
    (the stream's number, how many launches ``calls`` held then)."""
    waits = []

    class Stream(driver.Stream):
        def synchronize(self):
            waits.append((next(k for k, s in enumerate(streams) if s is self), len(calls)))
            return super().synchronize()

    streams = [Stream() for _ in range(count)]
    return streams, waits


def some_streams_waited(waits, launches, count, n_chunks):
    """What ``waits`` (``noting_waits``'s) adds where, after the last of ``launches`` launches,
    the host waited for some of the ``count`` streams but not all."""
    final = sorted({k for k, at in waits if at == launches})
    last = (n_chunks - 1) % max(count, 1)
    if not final or len(final) == count:
        return ""
    others = [k for k in range(count) if k not in final]
    if final == [last]:
        return (f": only streams[{last}], the last chunk's (chunk {n_chunks - 1}), had been "
                f"waited for, and the copies back on the other {len(others)} streams were still "
                "running (a synchronize() after the loop on the loop's variable waits for its "
                "last stream alone)")
    chunks = [c for c in range(n_chunks) if c % count in others]
    return (f": only {listed(f'streams[{k}]' for k in final)}"
            f"{' (streams[-1], the last in the list)' if final == [count - 1] else ''} had been "
            f"waited for, not {listed(f'streams[{k}]' for k in others)}, which carried chunks "
            f"{listed(chunks)}: a stream's synchronize() waits for its own work alone, and the "
            "last stream in the list need not finish last")


def stream_by_round(calls, streams, made, fn):
    """``(what, hint)`` where chunk c used the buffer pair c % len(streams) (the pairs numbered
    in the order they were allocated) but ran on streams[c // len(streams)], the stream picked
    by the round over the streams: chunk len(streams), on streams[1], used the pair chunk 0 used
    on streams[0]; the line that picks the stream read from ``fn``'s code where known; None for
    any other run."""
    k, ids = len(streams), {id(s): j for j, s in enumerate(streams)}
    pairs = [c % k for c in range(len(calls))]
    if (len(calls) <= k or [ids.get(id(c[3])) for c in calls] != [c // k for c in range(len(calls))]
            or _pair_numbers(calls, made, 0) != pairs or _pair_numbers(calls, made, 1) != pairs):
        return None
    name, target, (c, by), line = _round_pick(fn) or ("streams", "s", ("c", "len(streams)"), "")
    buffers = (_round_pick(fn, "Mod") or ("buffers",))[0]
    return (f"chunks {listed(range(k))} {'both' if k == 2 else 'all'} went to {name}[0], and "
            f"chunk {k} to {name}[1] with {buffers}[0], the pair chunk 0 used on {name}[0]: "
            f"{c} // {by}{line} picks the stream by the round over the streams, while the "
            f"buffers go by {c} % {by}", f"{target} = {name}[{c} % {by}], the same index as the "
            f"buffers': a chunk's stream and its pair go together, so that {name}[k] always uses "
            f"{buffers}[k]")


def one_chunk_a_stream(calls, streams, got, n_chunks):
    """``(what, hint)`` where the loop ran over the streams, not the chunks: one launch on each
    stream, for chunks 0 to len(streams) - 1 at their own lengths, fewer streams than chunks, and
    h_out written up to the end of those chunks alone (``got``, NaN where never written); None
    for any other run."""
    import numpy as np

    k, n = len(streams), got.size
    chunk = -(-n // n_chunks)
    chunks, end = -(-n // chunk), min(n, k * chunk)
    if (k >= chunks or [c[2] for c in calls] != [min(n, lo + chunk) - lo for lo in range(
            0, end, chunk)] or {id(c[3]) for c in calls} != {id(s) for s in streams}
            or not np.array_equal(np.isnan(got), np.arange(n) >= end)):
        return None
    return (f"only chunks {listed(range(k))} were processed, one per stream ({k} streams): "
            f"launch was called {k} times, so your loop ran len(streams) = {k} times, not "
            f"n_chunks = {n_chunks}, and chunks {k} to {chunks - 1} (h_out[{end}:{n}]) were "
            "never written", "loop over every chunk, not over the streams: for c in "
            "range(n_chunks), lo = c * chunk, hi = min(n, lo + chunk), and give chunk c the "
            "stream s = streams[c % len(streams)] and that stream's pair of buffers")


def waited_inside(waited, hint):
    """The values are right: did the host wait for a chunk's kernel before it queued the
    next (on the simulator, where ``waited`` is known)? ``hint``: the overlap's."""
    first = next((c for c, w in enumerate(waited or ()) if w), None)
    if first is not None:
        yield ("the results are right, but your function waited for chunk "
               f"{first - 1}'s kernel before it queued chunk {first}'s, so on a GPU the chunks "
               "run one after another and no copy overlaps a kernel: a copy without _async, or "
               "a synchronize inside the loop, waits for the streams", hint)
