"""Streams and events for the CPU simulator: work queued on a stream runs when the host waits.

On a GPU, a kernel launched on a stream and an asynchronous copy (``memcpy_htod_async``,
``memcpy_dtoh_async`` to page-locked memory) return at once; the work runs later, and its results
are there only after a call that waits for it. A program that reads a page-locked buffer before
``stream.synchronize()`` reads stale data. The simulator keeps that behaviour, so that the mistake
shows on a laptop too: such work is queued here and runs, one operation at a time in the order it
was queued, when something waits for it:

- ``Stream.synchronize()``, ``Event.synchronize()``: the work that the stream (event) waits for;
- ``Context.synchronize()``: all the work queued on the current device's streams;
- the calls that run in the legacy default stream (synchronous copies and memsets, ``get()``,
  kernels launched without a stream): the work queued before them on the current device, except
  on streams created non-blocking. CUDA's legacy default stream waits for every blocking stream
  of its context, and every such stream waits for it; another device's streams go on working,
  which is what lets a host thread keep several GPUs busy (notebook 11). CUDA has one a context;
  the simulator one a device (``_Legacy``);
- freeing device memory: the work that uses it (cuMemFree waits for the device);
- ``Stream.is_done()``, ``Event.query()``: when the work is not done they say so, and let one
  operation of it run at the host's next call (the next query one, a copy queued, a wait), so
  that a loop that polls gets there, as the GPU would, while asking alone never waits: as on a
  GPU the work asked about too early runs some time after the answer, a time read right after a
  query that said no fails, and a page-locked buffer refilled right after a stream's is_done()
  said no is what its queued copy reads;
- a queue of more than MAX_PENDING operations runs its oldest one, as a GPU's host waits when the
  queue is full.

Within those rules the work runs in the order it was queued: streams never overlap here, and two
streams that share a buffer get the right result, where a GPU may not. An event records the time
at which the work before it ended on a simulated device clock, on which each operation starts as
soon as it was queued and the device is free: the time between two events is the time of the
work between them, as on a GPU, even when the host waited long before asking for it. An error in
queued work (a kernel's illegal access) is raised by the call that waited for it, as CUDA reports
it, and the work queued after it is dropped.
"""

from __future__ import annotations

import itertools
import threading
import time

from . import devices
from ..errors import LogicError

MAX_PENDING = 1024
NON_BLOCKING = 1  # CU_STREAM_NON_BLOCKING: a stream that does not wait for the default stream


class _Op:
    """One queued operation: what to run, on which stream, after which other operations; once it
    has run, when it ended on the simulated device's clock (see _finish)."""

    __slots__ = ("seq", "stream", "action", "deps", "done", "queued", "end", "what", "touches")

    def __init__(self, seq, stream, action, deps, what, touches):
        self.seq, self.stream, self.action, self.deps, self.what = seq, stream, action, deps, what
        self.done, self.queued, self.end = False, time.perf_counter(), None
        self.touches = set(touches)  # the allocations (memory.Block) it uses


class _Legacy:
    """The legacy default stream (``stream=None``) of one device. CUDA has one a context; here
    each device has one, which all its contexts share: the course's contexts are the devices'
    primary ones, and with no context current the simulator works on device 0 (devices.py), whose
    primary context must still wait for that work. Two contexts of one device wait for each other
    here where a GPU's would not: the simulator waits more than a GPU there, never less."""

    blocking = True
    _context = None  # no context's own: it is never destroyed

    def __init__(self, device: int):
        self.device, self._last = device, None


_lock = threading.RLock()
_legacy: dict[int, _Legacy] = {}  # device number -> its legacy default stream
_pending: dict[int, _Op] = {}  # by sequence number, so in the order queued
_counter = itertools.count()
_local = threading.local()     # .running: this thread is running queued work
_engine_free = 0.0             # when the simulated device is done with the work it has run
_sticky = None                 # an error from work run where it could not be raised
_polled: list[_Op] = []        # the operation a poll that said no let run: at the host's next call


def submit(stream, action, what, after=(), touches=()):
    """Queue action() on stream (None: the legacy default stream) after the work it must follow
    and the operations in `after`; returns the operation. An action of None is a marker (an
    event, a wait): it is reached as soon as the work before it has run. touches: the
    allocations it uses, which must not be freed before it has run."""
    s = legacy() if stream is None else stream
    if not isinstance(s, _Legacy):
        s._check_alive(what)
    if _polled:
        _run([])  # the operation a poll let run runs first
    with _lock:
        deps = [op for op in (s._last, *after) if op is not None and not op.done]
        if isinstance(s, _Legacy):  # it waits for every blocking stream of its device
            deps += _last_of_blocking_streams(s.device)
        elif s.blocking:  # and they wait for it
            default = legacy(s.device)._last
            deps += [default] if default is not None and not default.done else []
        op = _Op(next(_counter), s, action, deps, what, touches)
        s._last = op
        _pending[op.seq] = op
        _settle_markers()
        oldest = next(iter(_pending.values())) if len(_pending) > MAX_PENDING else None
    if oldest is not None:
        _run([oldest], limit=1)
    return op


def _settle_markers():
    """Markers whose work has all run are reached. A collection may free memory at any
    allocation here and run the work that uses it (before_free), which settles markers of this
    list before the loop gets to them: those are gone from _pending already."""
    for op in list(_pending.values()):
        if op.action is None and all(d.done for d in op.deps):
            if _pending.pop(op.seq, None) is None:
                continue
            op.done = True
            _finish(op, 0.0)


def _finish(op, seconds):
    """Place op on the simulated device's clock, which events read. The device does one thing at a
    time and starts each operation as soon as it has been queued, what it waits for has ended, and
    it is free: the time between two events is the time of the work between them, however late
    the host asked for it. The host still sees results only when it waits (see the docstring)."""
    global _engine_free
    start = max([op.queued, *(d.end for d in op.deps if d.end is not None)])
    if op.action is not None:
        start = max(start, _engine_free)
        _engine_free = start + seconds
    op.end = start + seconds


def legacy(device: int | None = None) -> _Legacy:
    """The legacy default stream of ``device`` (None: the current one)."""
    device = devices.current_device() if device is None else device
    with _lock:
        return _legacy.setdefault(device, _Legacy(device))


def device_of(stream) -> int:
    """The device whose work ``stream`` is ordered with (None: the legacy default stream of the
    current one)."""
    return devices.current_device() if stream is None else stream.device


def _last_of_blocking_streams(device):
    last = {}
    for op in list(_pending.values()):
        s = op.stream
        if not isinstance(s, _Legacy) and s.blocking and s.device == device:
            last[id(s)] = op
    return list(last.values())


def _closure(targets):
    """The pending operations that targets need, targets included, in the order queued."""
    seen, todo = {}, [op for op in targets if op is not None]
    while todo:
        op = todo.pop()
        if op.done or op.seq in seen:
            continue
        seen[op.seq] = op
        todo.extend(op.deps)
    return [seen[k] for k in sorted(seen)]


def _run(targets, limit=None):
    """Run the operation a poll let run (``_polled``), then what targets need (at most `limit`
    operations), in order, reaching the markers the work run lets it reach. Not from within
    queued work (a free during a garbage collection there): that would run later work before
    it."""
    if getattr(_local, "running", False):
        return
    _local.running = True
    try:
        with _lock:
            polled, _polled[:] = list(_polled), []
            _settle_markers()
            for op in [*polled, *_closure(targets)[:limit]]:
                if op.done:
                    continue
                del _pending[op.seq]
                op.done = True
                began = time.perf_counter()
                try:
                    op.action()
                except BaseException as err:
                    _drop_all(err)
                    raise
                _finish(op, time.perf_counter() - began)
                _settle_markers()
    finally:
        _local.running = False


def _drop_all(err):
    dropped = len(_pending)
    for op in list(_pending.values()):
        op.done = True
    _pending.clear()
    if err.args and isinstance(err.args[0], str):
        after = f"; the {dropped} operations queued after it were dropped" if dropped else ""
        err.args = (f"{err.args[0]} (raised where the host waited for the work queued on a "
                    f"stream{after})", *err.args[1:])


def _raise_sticky():
    global _sticky
    if _sticky is not None:
        err, _sticky = _sticky, None
        raise err


def synchronize(targets=None):
    """Wait for targets (operations; None: everything queued on the current device's streams,
    as cuCtxSynchronize waits for its context's)."""
    _raise_sticky()
    with _lock:
        if targets is None:
            here = devices.current_device()
            targets = [op for op in list(_pending.values()) if op.stream.device == here]
    _run(targets)


def wait_default():
    """What a call in the legacy default stream waits for: the work queued on the current
    device's default stream and on its blocking streams, not other devices' work."""
    _raise_sticky()
    with _lock:
        here = devices.current_device()
        targets = [op for op in list(_pending.values())
                   if op.stream.blocking and op.stream.device == here]
    _run(targets)


def before_free(block):
    """Before an allocation is freed, the queued work that uses it runs (cuMemFree waits for the
    device). Only that work: a garbage collection that frees another array at a random moment
    must not hide a missing synchronize. It may be called from a destructor, where an error
    cannot be raised: the next call that waits raises it."""
    global _sticky
    with _lock:
        targets = [op for op in list(_pending.values()) if block in op.touches]
    if not targets:
        return
    try:
        _run(targets)
    except Exception as err:  # noqa: BLE001 - kept, raised by the next waiting call
        _sticky = err


def finish(handle):
    """Run the work queued on the streams of a context (a devices.Handle) about to be
    destroyed."""
    with _lock:
        targets = [op for op in list(_pending.values()) if op.stream._context is handle]
    synchronize(targets)


def poll(targets):
    """True if targets have run; if not, say False and let one operation of what they need run at
    the host's next call (see the docstring): a time read, or a buffer refilled, right after a
    no finds that work not run."""
    _raise_sticky()
    if _polled:
        _run([])  # what the last poll let run
    with _lock:
        _settle_markers()
        if all(op is None or op.done for op in targets):
            return True
        _polled[:] = _closure(targets)[:1]
    return False


def reached(event) -> bool:
    """Whether the work queued before ``event`` has run, without running any (``Event.query``
    lets one operation run, as a polling loop needs). Work queued here runs only when the host
    waits for it, so this tells where the host waited: a checker reads from it that a pipeline
    synchronized inside its loop (notebook 05)."""
    return event._op is not None and event._op.done


def _check_alive(context, call, what):
    """LogicError, as the H200 said it of a stream ("cuStreamSynchronize failed: context is
    destroyed"), when ``what`` (a stream, an event) belongs to a context (a devices.Handle, None
    for none) that has been destroyed."""
    if context is not None and not context.alive:
        raise LogicError(f"{call} failed: context is destroyed (" + context.dead_words(what) + ")")


class Stream:
    """pycuda.driver.Stream: a queue of work. flags=1 (CU_STREAM_NON_BLOCKING): a stream that does
    not wait for the legacy default stream, nor it for this one."""

    def __init__(self, flags=0):
        self.blocking = not (int(flags) & NON_BLOCKING)
        self._last = None
        self._context = devices.current_handle()  # it ends with this context (devices.detach)
        self.device = devices.current_device()
        self._ward = devices.current()  # which it keeps alive (PyCUDA's context_dependent)

    def _check_alive(self, call):
        _check_alive(self._context, call, "this stream")

    def synchronize(self):
        self._check_alive("cuStreamSynchronize")
        synchronize([self._last])

    def is_done(self):
        self._check_alive("cuStreamQuery")
        return poll([self._last])

    def wait_for_event(self, event):
        """Work queued on this stream from now on starts after event's work has run."""
        self._check_alive("cuStreamWaitEvent")
        event._check_alive("cuStreamWaitEvent")
        if event._op is not None:
            submit(self, None, "wait_for_event", after=[event._op])


class event_flags:  # noqa: N801 - PyCUDA's name
    DEFAULT, BLOCKING_SYNC, DISABLE_TIMING, INTERPROCESS = 0, 1, 2, 4


class Event:
    """pycuda.driver.Event: a marker in a stream; it records the time at which the work queued
    before it has run. It belongs to the context current when it was made, and ends with it as
    that context's streams do (devices.detach)."""

    def __init__(self, flags=0):
        self._op = None
        self._context, self._ward = devices.current_handle(), devices.current()  # as a stream's

    def _check_alive(self, call):
        _check_alive(self._context, call, "this event")

    def record(self, stream=None):
        self._check_alive("cuEventRecord")
        self._op = submit(stream, None, "cuEventRecord")
        return self

    def synchronize(self):
        self._check_alive("cuEventSynchronize")
        synchronize([self._op])
        return self

    def query(self):
        self._check_alive("cuEventQuery")
        return poll([self._op])

    def _time(self):
        from ..errors import RuntimeError

        self._check_alive("cuEventElapsedTime")
        if self._op is None:
            raise LogicError("cuEventElapsedTime failed: invalid resource handle "
                             "(the event was never recorded)")
        if not self._op.done:
            raise RuntimeError("cuEventElapsedTime failed: device not ready (the work before "
                               "this event has not run yet: call event.synchronize() first)")
        if self._op.end is None:
            raise LogicError("cuEventElapsedTime failed: the work before this event failed")
        return self._op.end

    def time_since(self, event):
        """Milliseconds from event to this one."""
        return (self._time() - event._time()) * 1e3

    def time_till(self, event):
        """Milliseconds from this event to event."""
        return (event._time() - self._time()) * 1e3
