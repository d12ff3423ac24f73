"""Launches of notebook 05's pipeline (``pipeline.py``) queued on another stream than their
chunk's copies: read from the streams of the calls, not from the values, which on a GPU depend
on when each stream's work runs."""

from __future__ import annotations

from helpers.exercises.pipeline_models import address

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
