"""What the exercises whose work is a Python function share (notebook 05's copy_bandwidth,
staging_upload and pipeline, notebook 11's gray_split, halo_exchange and split_sum): the check
that refuses anything but a function, and the function run so that whatever it raises becomes a
mistake, never the checker's crash, told with the line of the learner's code that raised it
(``learner_code.raised``), and the copies it queued noted (one given source first refused:
``source_first``); for notebook 11's, the thread's context stack read
and restored around the run, the current device, a loop that stopped at an empty share, the
copies to the host it made and the order of its launches."""

from __future__ import annotations

import ast
import contextlib
import numbers

import numpy as np

from helpers.exercises.learner_code import (call_running, caret_as_power, cell_of, code_of, frame_of,
                                           learner_line, raised)
from helpers.exercises.python_screen import refusal
from helpers.exercises.verdict import Mistake, Verdict, not_yet

READ_THE_MESSAGE = "the message says what went wrong on that line"
class Refused(Exception):
    """A call the checker hands the learner (a kernel, say) refused to run; its ``mistake`` says
    what the call saw wrong, more than the exception's name would."""

    def __init__(self, mistake: Mistake):
        super().__init__(mistake[0])
        self.mistake = mistake


@contextlib.contextmanager
def calls_noted(drv, names, note):
    """While in use, the functions ``names`` of the module ``drv`` (the driver as the learner's
    function finds it), each call first handed to ``note(name, args, kwargs)``, whose answer, where
    not None, joins the list this gives, then made (so a call that raises is noted too)."""
    noted, saved = [], {name: getattr(drv, name) for name in names}

    def noting(name):
        def call(*args, **kwargs):
            kept = note(name, args, kwargs)
            if kept is not None:
                noted.append(kept)
            return saved[name](*args, **kwargs)
        return call

    for name in saved:
        setattr(drv, name, noting(name))
    try:
        yield noted
    finally:
        for name, function in saved.items():
            setattr(drv, name, function)


def copies_noted(drv, check=None):
    """``calls_noted`` for the driver's asynchronous copies as they are queued: ``(direction,
    host array, stream, device buffer)``, direction "htod" or "dtoh", stream None for the default
    stream. ``check(copy)``, where given, sees each before it is made (it may refuse it)."""
    def note(name, args, kwargs):
        given = {**dict(zip(("dest", "src", "stream"), args)), **kwargs}
        copy = ("htod", given.get("src"), given.get("stream"), given.get("dest")) if (
            "htod" in name) else ("dtoh", given.get("dest"), given.get("stream"), given.get("src"))
        if check is not None:
            check(copy)
        return copy
    return calls_noted(drv, ("memcpy_htod_async", "memcpy_dtoh_async"), note)


def source_first(fn, drv):
    """For ``copies_noted``'s check: a copy host to device given source first, a device buffer
    (or an address in one, int(d) + lo * 4) where the host array belongs and an array where the
    destination does (drv.memcpy_htod_async(h, d, stream), NumPy's and shutil's order), refused
    (``Refused``) before the driver fails on it, with the line of ``fn``'s code that queued it
    (the frame running ``fn``'s code)."""
    def check(copy):
        if copy[0] != "htod" or not isinstance(copy[1], (drv.DeviceAllocation, numbers.Integral)
                                               ) or not hasattr(copy[3], "__array_interface__"):
            return
        code, call = call_running(fn, "memcpy_htod_async", args=2)
        host, device, rest, where = "h", "d", ", stream", "memcpy_htod_async"
        if call:
            host, device = (ast.unparse(a) for a in call.args[:2])
            rest = "".join(f", {ast.unparse(a)}" for a in [*call.args[2:], *call.keywords])
            where = f"{code.quoted(call)} gives memcpy_htod_async"
        raise Refused((f"{where} the host array {host} first and the device buffer {device} "
                       "second: it takes the destination first, the device buffer, then the "
                       f"host array it copies from (it tried to read {device} as host memory)",
                       f"the destination comes first: drv.memcpy_htod_async({device}, {host}"
                       f"{rest}) (htod: into the device buffer, from the host array)"))
    return check

HOLD_MS = 20.0
"""How long ``hold_streams`` keeps each stream busy before the learner's work."""
_SPIN = r"""__global__ void hold(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
}"""


def stream_holder(drv):
    """On a GPU (``drv`` PyCUDA's driver), ``hold(stream, ms=HOLD_MS)``: one thread at the head
    of ``stream``, busy for ``ms``, so that work queued there after it cannot have ended when the
    learner's function returns unless it waited (a copy of a few megabytes is over before Python
    queues the next); None on the simulator, which runs queued work only when the host waits and
    so holds it back the same way."""
    if drv.__name__ != "pycuda.driver":
        return None
    from helpers.backend import SourceModule

    spin = SourceModule(_SPIN).get_function("hold")
    rate = drv.Context.get_device().get_attribute(drv.device_attribute.CLOCK_RATE)  # kHz

    def hold(stream, ms=HOLD_MS):
        spin(np.int64(ms * rate), block=(1, 1, 1), grid=(1, 1), stream=stream)
    return hold


def hold_streams(streams, drv):
    """Each of ``streams`` held (``stream_holder``) before the learner's function runs."""
    if (hold := stream_holder(drv)) is not None:
        for s in streams:
            hold(s)


def check_function(fn, name: str, verdict) -> Verdict:
    """Print and return ``verdict(fn)``, or the verdict that ``fn`` is not a function (the
    notebook passed what the function ``name`` returned), or that its code uses what
    ``python_screen`` refuses (as ``catalog.define_function`` refuses it for the grader), or
    ``fn`` itself where it is that verdict already. Device memory allocated meanwhile starts as
    zeros (``allocations_zeroed``)."""
    if isinstance(fn, Verdict):
        return fn.report()
    if callable(fn) and (code := cell_of(fn)) and (refused := refusal(code)):
        return not_yet(*refused).report()
    if callable(fn):
        with allocations_zeroed():
            return verdict(fn).report()
    check = "check_" + name.removeprefix("my_")
    return not_yet(f"{check} needs your function, got {type(fn).__name__}",
                   f"call {check}({name}), without parentheses after {name}").report()


@contextlib.contextmanager
def allocations_zeroed():
    """While in use, on a GPU, every new device allocation (``drv.mem_alloc``, and a GPUArray's
    own, whatever made it) starts as zeros, as the simulator's fresh pages do. Else ``cudaMalloc``
    hands back memory a previous run left: a right answer, computed from the same images at the
    same address, would hide an output the learner's function never wrote, and a mistake found on
    the simulator would pass on the GPU."""
    from helpers.backend import BACKEND, drv, gpuarray

    if BACKEND == "simulator":
        yield
        return
    alloc, init = drv.mem_alloc, gpuarray.GPUArray.__init__

    def mem_alloc(nbytes):
        memory = alloc(nbytes)
        drv.memset_d8(memory, 0, nbytes)
        return memory

    def made(self, *args, **kwargs):
        init(self, *args, **kwargs)
        given = {**dict(zip(("shape", "dtype", "allocator", "base", "gpudata"), args)), **kwargs}
        if given.get("base") is None and given.get("gpudata") is None and self.nbytes:
            drv.memset_d8(self.gpudata, 0, self.nbytes)

    drv.mem_alloc, gpuarray.GPUArray.__init__ = mem_alloc, made
    try:
        yield
    finally:
        drv.mem_alloc, gpuarray.GPUArray.__init__ = alloc, init


def run_catching(call, todo: str, hints=(), otherwise: str = READ_THE_MESSAGE):
    """``(None, call())``, or ``(mistake, None)`` when the learner's function raised: a refused
    call's mistake, else the exception, where in the learner's code it was raised (``raised``)
    and a hint: ``todo`` for the stub's NotImplementedError, else that of the first ``(exception
    class, hint)`` of ``hints`` that fits (then a power written with ^, ``caret_as_power``), or
    ``otherwise``. A hint may be a function of the
    exception that tells more: ``(what the checker saw, hint)``, or None where it saw nothing
    (the next pair is tried)."""
    try:
        return None, call()
    except Refused as err:
        return err.mistake, None
    except Exception as err:  # noqa: BLE001 - a learner's bug is reported, not raised
        for kind, hint in ((NotImplementedError, todo), *hints, (TypeError, caret_as_power)):
            told = (hint(err) if callable(hint) else ("", hint)) if isinstance(err, kind) else None
            if told:
                return (raised(err) + (f": {told[0]}" if told[0] else ""), told[1]), None
        return (raised(err), otherwise if learner_line(err) else "read the message: it says "
                "what went wrong"), None


def pointer_added(fn, place: int, pointer):
    """For ``run_catching``'s hints (TypeError): an offset added to the device buffer ``pointer``
    itself, the parameter at ``place`` of ``fn`` (``d + lo * 4``), told where adding a number to
    ``pointer`` raises TypeError and the line that raised adds to that parameter's name."""
    import inspect
    import re

    def told(err):
        try:
            pointer + 0
        except TypeError:
            pass
        else:
            return None
        try:
            name = list(inspect.signature(fn).parameters)[place]
        except (TypeError, ValueError, IndexError):
            return None
        line = learner_line(err)
        found = line and re.search(rf"(?<![\w.]){re.escape(name)}\s*\+\s*([^,)]+?)\s*(?=[,)]|$)",
                                   line[2])
        if not found:
            return None
        offset = found.group(1)
        return (f"{name} + {offset} adds a number to {name}, a {type(pointer).__name__}: it "
                "stands for a device buffer, and Python has no + for it (its address is "
                f"int({name}))", f"add the offset to the address: int({name}) + {offset}")
    return told


def stored_on_the_host(fn, whose=lambda _: "its device's"):
    """For ``run_catching``'s hints: a gpuarray stored into a host NumPy array, ``host[...] =
    name``, at the line of ``fn``'s code where the error was raised (the values read in that
    frame), where its get() belongs; ``whose(the gpuarray)`` says whose memory it is in ("device
    0's")."""
    def told(err):
        from helpers.backend import gpuarray

        frame, code = frame_of(err, fn), code_of(fn)
        line = frame and code and frame.f_lineno - code.first + 1
        store = line and next((n for n in ast.walk(code.tree) if isinstance(n, ast.Assign)
                               and n.lineno == line and isinstance(n.value, ast.Name)
                               and isinstance(n.targets[0], ast.Subscript)
                               and isinstance(n.targets[0].value, ast.Name)), None)
        if not store:
            return None
        host, name = store.targets[0].value.id, store.value.id
        value = frame.f_locals.get(name)
        if not (isinstance(frame.f_locals.get(host), np.ndarray)
                and isinstance(value, gpuarray.GPUArray)):
            return None
        return (f"it puts {name}, a gpuarray in {whose(value)} memory, into {host}, a NumPy array "
                "in host memory: NumPy cannot read device memory", f"copy it back first, with "
                f"{whose(value)} context current: {ast.unparse(store.targets[0])} = {name}.get()")
    return told


def from_file(path: str, name: str):
    """The function ``name`` that ``cuda_src/<path>`` defines (notebook 11's small exercises are
    files the learner edits, as the kernel stubs are, for that notebook's stored two-GPU run
    cannot take new cells), or the verdict that says why there is none. A file that does not
    run gives a function that raises its error (``catalog.define_function``)."""
    from helpers import course
    from helpers.exercises.catalog import define_function

    file = course.cuda_src() / path
    if not file.is_file():
        return not_yet(f"cannot find {path} (looked for {file})",
                       "paths are relative to cuda_src/; restore the file with "
                       "helpers.exercises.reset(...) if it is gone")
    return define_function(file.read_text(errors="replace"), name, str(file))


def copies_to_host():
    """On the simulator, the copies to the host that run in the ``with`` block
    (copies.recording_to_host); elsewhere None: PyCUDA does not tell them."""
    import contextlib

    from helpers.backend import BACKEND

    if BACKEND != "simulator":
        return contextlib.nullcontext(None)
    from helpers.sim.machine.copies import recording_to_host

    return recording_to_host()


class LaunchOrder:
    """What the simulator, which runs queued work only when the host waits, shows of the order
    of a run's launches on several devices and ``copied``, its copies to the host
    (``copies_to_host``). Each kernel is queued on a stream of its device (one of the checker's
    where it had none: the default stream would run it at once) with an event after it, which
    tells whether the host waited for it before a launch on another device."""

    def __init__(self, copied: list):
        self.copied, self.events, self.streams = copied, [], {}

    def seen(self, k) -> tuple:  # (waited, copies) for a launch on device k about to be made
        from helpers.sim.machine.streams import reached

        waited = {i for i, event in self.events if i != k and reached(event)}
        return tuple(sorted(waited)), len(self.copied)

    def launch(self, k, function, args, kwargs):
        """``function(*args, **kwargs)``, device k's kernel, on a stream of the device where it
        had none (with time_kernel it runs at once, leaving nothing to wait for), an event after
        it."""
        from helpers.backend import drv

        if kwargs.get("stream") is None and not kwargs.get("time_kernel"):
            if k not in self.streams:
                self.streams[k] = drv.Stream()
            kwargs = {**kwargs, "stream": self.streams[k]}
        result = function(*args, **kwargs)
        if kwargs.get("stream") is not None:
            self.events.append((k, drv.Event().record(kwargs["stream"])))
        return result


def current_device():
    """The number of the device whose context is current, or None."""
    from helpers.backend import drv

    try:
        current = drv.Context.get_device()
    except drv.Error:
        return None
    return next((k for k in range(drv.Device.count()) if drv.Device(k) == current), None)


def stopped_at_empty(shares: list, done: list, unit: str, verb: str, fn=None):
    """Device k's share was empty (``shares``: each device's size, in ``unit``s) and a later one
    was not, yet no device from k on did its share (``done``: what each did): the loop ended at
    the first empty share instead of skipping it, or, where ``fn``'s code skips with an if whose
    body is continue, that if's test held for a device whose share was not empty."""
    empty = next((k for k, size in enumerate(shares) if not size), None)
    if (empty is not None and any(shares[empty:]) and not any(done[empty:])
            and list(done[:empty]) == list(shares[:empty])):
        later = next(k for k in range(empty, len(shares)) if shares[k])
        count = f"{shares[later]} {unit}{'s' if shares[later] > 1 else ''}"
        code = code_of(fn) if fn is not None else None
        skip = code and next((n for n in ast.walk(code.tree) if isinstance(n, ast.If)
                              and any(isinstance(s, ast.Continue) for s in n.body)), None)
        if skip:
            yield (f"your skip test, {code.quoted(skip)}, skipped device {later} too, whose "
                   f"share ({count}) is not empty: every device"
                   f"{f' from {empty} on' if empty else ''} was skipped, "
                   f"so device {later}'s share was never {verb}", "skip only a device whose own "
                   "share is empty: if lo == hi: continue (lo and hi are the device's own bounds)")
            return
        yield (f"the loop stopped at device {empty}'s empty share: device {later}'s share "
               f"({count}) was never {verb}", "skip a device with an empty share and go on to "
               "the next: if lo == hi: continue (not break)")


def context_mistakes(before: list, after: list, using: str = "with using(contexts[k]): ..."):
    """The mistake of a function that found the thread's context stack ``before`` and left it
    ``after`` (``context_stack``'s lists): a context left pushed, or one popped that it had not
    pushed. ``using`` says how to push and pop, in the exercise's words."""
    if len(after) > len(before):  # the depth: device 0's context pushed again is still current
        extra = len(after) - len(before)
        yield (f"your function returned with {extra} more context{'s' if extra > 1 else ''} on "
               "the thread's context stack than before it: a context it pushed was not popped",
               "push and pop in pairs: " + using)
    elif after != before:
        yield ("your function returned with another context current than the one before it: "
               "it popped a context it had not pushed", "pop only what you pushed: " + using)


def context_stack(restore: list | None = None) -> list:
    """This thread's contexts, innermost first; then the stack is made ``restore`` again, or
    left as it was. Neither CUDA nor PyCUDA tells the stack's depth, so it is popped to the
    bottom to be read. Restoring undoes whatever the learner's function pushed or popped: a
    context left pushed would make PyCUDA abort the process when it exits (\"The context stack
    was not empty upon module cleanup\")."""
    from helpers.backend import drv

    stack = []
    while drv.Context.get_current() is not None:
        stack.append(drv.Context.get_current())
        drv.Context.pop()
    for context in reversed(stack if restore is None else restore):
        context.push()
    return stack
