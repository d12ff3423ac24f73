"""Launches of notebook 05's pipeline (``pipeline.py``) queued on another stream than their
chunk's copies: read from the streams of the calls, not from the values, which on a GPU depend
on when each stream's work runs; and what a return that waited for one stream alone shows."""

from __future__ import annotations

from helpers.exercises.pipeline_copies import address

OWN_STREAM_HINT = ("launch on the chunk's own stream, the one its copies use: s = streams[c % "
                   "len(streams)], then drv.memcpy_htod_async(d_in, h_in[lo:hi], s), launch(d_in, "
                   "d_out, hi - lo, s), drv.memcpy_dtoh_async(h_out[lo:hi], d_out, s): a stream "
                   "runs its work in order, so the kernel waits for the copy in and the copy out "
                   "for the kernel")


def launched_off_its_stream(calls, copies, order, streams):
    """Launches whose chunk's copy in (the last copy into the launch's input buffer queued before
    it) and copy out (the first copy out of its output buffer queued after it) went to one of
    ``streams``, the launch to another of them (``order``: for each launch of ``calls``, how many
    of ``copies`` were queued before it): nothing orders the kernel after the copy in or before
    the copy out."""
    if not calls or len(order) != len(calls):
        return

    def number(stream):
        return next((i for i, s in enumerate(streams) if s is stream), None)

    off = []
    for k, (d_in, d_out, _, stream) in enumerate(calls):
        into = [s for w, _, s, d in copies[:order[k]] if w == "htod" and address(d) == d_in]
        out = [s for w, _, s, d in copies[order[k]:] if w == "dtoh" and address(d) == d_out]
        if into and out and into[-1] is out[0] and None not in (number(stream), number(out[0])) \
                and stream is not out[0]:
            off.append((k, number(stream), number(out[0])))
    if off:
        k, used, own = off[0]
        yield (f"chunk {k}'s kernel was launched on streams[{used}], its copy in and copy out on "
               f"streams[{own}] (so for {len(off)} of {len(calls)} chunks): nothing orders the "
               "kernel after its chunk's copy in or before its copy out, since each stream runs "
               "its own work in order but not the other streams'", OWN_STREAM_HINT)


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


def one_stream_waited(done, n_chunks):
    """What ``done`` adds when the last chunk's stream alone had ended at the return."""
    last = (n_chunks - 1) % max(len(done), 1)
    if len(done) < 2 or [k for k, d in enumerate(done) if d] != [last]:
        return ""
    return (f": only streams[{last}], the last chunk's (chunk {n_chunks - 1}), had been waited "
            f"for, and the copies back on the other {len(done) - 1} streams were still running "
            "(a synchronize() after the loop on the loop's variable waits for its last stream "
            "alone)")
