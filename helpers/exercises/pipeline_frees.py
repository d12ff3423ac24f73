"""The frees of notebook 05's pipeline (``pipeline.py``): a device buffer freed while work queued
on a stream that uses it had not run, the stream not yet waited for, is refused before it is
made and named. On a GPU, cuMemFree of memory from mem_alloc "may perform implicit
synchronization" (the CUDA driver API's cuMemFree) and in practice waits for the device, so such
a function works there by accident; the simulator waits for the work that uses the buffer alone.
Either way the course's rule is to wait for the streams before using, or freeing, what their
work uses."""

from __future__ import annotations

import ast
import contextlib

from helpers.exercises.function import Refused
from helpers.exercises.learner_code import call_running
from helpers.exercises.verdict import listed


@contextlib.contextmanager
def frees_refused(drv, streams, calls, copies, fn):
    """While in use, ``DeviceAllocation.free`` refuses (``Refused``) to free a buffer that a
    launch of ``calls`` or a copy of ``copies`` (``buffers_watched``'s: the device buffer as its
    address) used, from its start, on one of ``streams`` whose work has not all run yet (its
    is_done(), cuStreamQuery: an event recorded and queried at once may not be reached yet on a
    GPU even where the stream was waited for): named with the line of ``fn``'s code that freed it."""
    cls = drv.DeviceAllocation
    free = cls.free

    def checked(buf):
        try:
            start = int(buf)
        except drv.LogicError:  # freed already (the simulator's): free() says so, as PyCUDA's
            return free(buf)
        users = [k for k, c in enumerate(calls) if start in c[:2]]
        used = [calls[k][3] for k in users] + [s for _, _, s, at in copies if at == start]
        running = [k for k, s in enumerate(streams) if any(u is s for u in used)
                   and not s.is_done()]
        if running:
            raise Refused(_freed_in_use(fn, users, running))
        return free(buf)

    cls.free = checked
    try:
        yield
    finally:
        cls.free = free


def _freed_in_use(fn, chunks, running):
    """(problem, hint) of a buffer freed while the work of ``chunks`` (their launches' numbers)
    on the streams numbered ``running`` still used it; the line of ``fn``'s code (the frame
    running it) named where known."""
    code, call = call_running(fn, "free")
    name = ast.unparse(call.func.value) if call else "a device buffer"
    where = f" at {code.quoted(call)}" if call else ""
    on = listed(f"streams[{k}]" for k in running)
    work = f"the copies and kernels of chunks {listed(chunks)}" if chunks else "the copies"
    return (f"your function freed {name}{where} while {work}, queued on {on}, still used it: "
            f"{on} had not been waited for, so that work had not run (on a GPU the free may "
            "wait for the device by itself, but that is no synchronization to rely on)",
            "wait for every stream before freeing its buffers: for s in streams: "
            "s.synchronize(), and only then free them")
