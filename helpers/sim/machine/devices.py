"""Several simulated devices and their contexts: which one each thread works on, what belongs to
which, and what ends with a context.

``settings.devices`` (``CUDA_SIM_DEVICES``, default 1) devices are presented, numbered from 0, so
that code written for several GPUs runs on a laptop. They all run on the same CPU, one launch at
a time: each holds its own results, but they do not run side by side, and a speed-up measured
across them means nothing.

What this module keeps, and the rules a GPU enforces that it checks:

- **Contexts are current per thread.** Each host thread has its own stack of contexts (``push``,
  ``pop``); what a thread does goes to the device of the context on top. (With none, the
  simulator uses device 0, where PyCUDA would raise: the notebooks' main thread never pushes one
  of its own. What is made then belongs to device 0 and to no context: any context of device 0
  may use it.)
- **A context lives while it is held.** A ``Handle`` is what CUDA keeps of a context (a
  CUcontext); ``driver.Context`` objects are PyCUDA's wrappers of one. ``make_context`` makes a
  handle held once; each ``retain_primary_context`` holds the device's primary one once more.
  ``Context.detach()`` lets go of its hold and makes its wrapper invalid (PyCUDA's
  ``context::detach``); so does the garbage collector, for a wrapper never detached, once
  nothing refers to it: neither the program, nor a thread's stack, nor what was made while it
  was current (allocations, streams, events and modules keep it, as PyCUDA's
  ``context_dependent`` objects do). The hold that was the last destroys the context: its
  allocations are freed, its modules, streams and events are dead, and using them fails as
  PyCUDA does on the H200 (a stream: "context is destroyed"; a module's kernel: "invalid
  resource handle"; its memory: a use after free), with where it was destroyed. (CUDA lets a
  destroyed context be pushed again, and then every call fails with "context is destroyed"; the
  simulator refuses the push. PyCUDA's destructor of a primary context's wrapper leaves that
  context current in CUDA's own stack, which the simulator does not keep apart from PyCUDA's.)
- **Memory belongs to a context**, and so to its device: the context current when it was
  allocated. Each device has an equal share of settings.device_memory (running out is
  ``MemoryError``). A kernel may use its own device's memory (any context's: the H200 ran a
  kernel on memory of another context of its device without a fault), or another device's once
  its context has enabled peer access to that device (``Context.enable_peer_access``); memory of
  another device without it is refused with ``LaunchError``, where a GPU would fault with an
  illegal address and lose its context. gpuarray's arithmetic is checked the same way: PyCUDA
  runs it as a kernel. Copies (``memcpy_dtod``, ``memcpy_peer``, ``get``) work between any two
  devices, as they do on a GPU with unified addressing.
- **A module belongs to the context it was compiled in.** Its kernels cannot be launched while
  another device's context is current: ``LogicError``, "invalid resource handle", as on a GPU.
  Compile the module once a device.
"""

from __future__ import annotations

import threading
import weakref

from .. import errors
from . import budget, memory
from ..settings import settings

_local = threading.local()   # .stack: this thread's contexts (driver.Context), innermost last
_lock = threading.RLock()     # re-entrant: a finalizer run by the collector takes it again
_owner = {}                  # allocation address -> (its Handle or None, bytes)
_peers = set()               # (a, b): device a's kernels may use device b's memory
_module_home = weakref.WeakKeyDictionary()   # loaded module -> its Handle, or None
_module_ward = weakref.WeakKeyDictionary()   # loaded module -> the Context it keeps alive, or None
_primary = {}                # device number -> the Handle of its primary context


def count() -> int:
    """How many devices the simulator presents."""
    return settings.devices


def check_number(number) -> int:
    """``number`` as a device number; LogicError naming the ones there are when it is none."""
    number = int(number)
    if not 0 <= number < count():
        devices = "one device, number 0" if count() == 1 else f"devices 0 to {count() - 1}"
        raise errors.LogicError(
            f"cuDeviceGet failed: invalid device ordinal {number} (the simulator has {devices}; "
            "CUDA_SIM_DEVICES=N, or settings.update(devices=N), presents N)")
    return number


# ---- contexts -------------------------------------------------------------------------------
class Handle:
    """What CUDA keeps of a context: its device, how many holds it has (``users``), whether it is
    alive, where it was destroyed (words, once it is), and the allocations to free then."""

    def __init__(self, device: int):
        self.device, self.users, self.alive, self.destroyed_at = check_number(device), 1, True, None
        self.allocations = weakref.WeakSet()

    def dead_words(self, what: str) -> str:
        """Why ``what`` (a stream, a kernel's module, ...) of this destroyed context is dead, and
        what to do."""
        where = f" at {self.destroyed_at}" if self.destroyed_at else ""
        return (f"{what} belongs to a context that Context.detach(){where} destroyed: its "
                "memory, modules and streams ended with it. Make them again with a live context "
                "current, or detach the context only after its last use")


def _stack() -> list:
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


def current():
    """This thread's current context (a driver.Context), or None."""
    stack = _stack()
    return stack[-1] if stack else None


def current_handle():
    """The Handle of this thread's current context, or None (device 0, no context)."""
    context = current()
    return None if context is None else context._handle


def current_device() -> int:
    """The number of the device this thread works on: its current context's, else 0."""
    handle = current_handle()
    return 0 if handle is None else handle.device


def push(context) -> None:
    handle = context._handle
    if not handle.alive:
        where = f" at {handle.destroyed_at}" if handle.destroyed_at else ""
        raise errors.LogicError(
            f"cuCtxPushCurrent failed: context is destroyed (Context.detach(){where} destroyed "
            f"it; make a new one: Device({handle.device}).make_context(). On a GPU the push "
            "succeeds, and every call after it fails)")
    _stack().append(context)


def pop():
    stack = _stack()
    if not stack:
        raise errors.LogicError("cuCtxPopCurrent failed: invalid device context (no context "
                                   "is current in this thread)")
    return stack.pop()


def create(number: int) -> Handle:
    """A new context of device ``number``, held once (cuCtxCreate)."""
    return Handle(number)


def retain_primary(number: int) -> Handle:
    """Device ``number``'s primary context, held once more (made anew when it was destroyed)."""
    number = check_number(number)
    with _lock:
        handle = _primary.get(number)
        if handle is not None and handle.alive:
            handle.users += 1
        else:
            handle = _primary[number] = Handle(number)
        return handle


def detach(context, where) -> None:
    """PyCUDA's Context.detach(): drop ``context`` from this thread's stack, make it invalid, and
    let go of its hold on its Handle; the last hold destroys the context (``where``: words for
    the line that did it, or None). The work queued on its streams must have run (device.py)."""
    if not context._valid:
        raise errors.LogicError("context::detach failed: invalid device context - cannot detach "
                                "from invalid context")
    stack = _stack()
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is context:
            del stack[i]
            break
    context._valid = False
    handle = context._handle
    with _lock:
        handle.users -= 1
        if handle.users:
            return
        handle.alive, handle.destroyed_at = False, where
    for allocation in list(handle.allocations):
        allocation.end_with_context(where)


# ---- peer access ------------------------------------------------------------------------------
def can_access_peer(a: int, b: int) -> bool:
    """Simulated devices share the host's memory, so each can reach every other one."""
    return a != b


def enable_peer_access(peer: int) -> None:
    """Let the current device's kernels use device ``peer``'s memory."""
    here = current_device()
    if peer == here:
        raise errors.LogicError("cuCtxEnablePeerAccess failed: invalid device (a context "
                                   "cannot enable peer access to its own device)")
    with _lock:
        if (here, peer) in _peers:
            raise errors.LogicError("cuCtxEnablePeerAccess failed: peer access is already "
                                       "enabled")
        _peers.add((here, peer))


def disable_peer_access(peer: int) -> None:
    here = current_device()
    with _lock:
        if (here, peer) not in _peers:
            raise errors.LogicError("cuCtxDisablePeerAccess failed: peer access has not been "
                                       "enabled")
        _peers.discard((here, peer))


# ---- what belongs to which context ------------------------------------------------------------
def _device_of(handle) -> int:
    return 0 if handle is None else handle.device


def memory_info(number: int):
    """(free, total) bytes of device ``number``: all of settings.device_memory for one device,
    an equal share of it for each of several."""
    used, total = budget.usage()
    if count() == 1:
        return max(total - used, 0), total
    share = total // count()
    with _lock:
        mine = sum(size for handle, size in list(_owner.values()) if _device_of(handle) == number)
    return max(share - mine, 0), share


def adopt_allocation(allocation) -> None:
    """Note that a new allocation (a DeviceAllocation, whose ``end_with_context`` frees it when
    its context is destroyed) belongs to the current context; MemoryError (the allocation given
    back) when that device's share of the memory is used up."""
    block, handle = allocation._block, current_handle()
    here = _device_of(handle)
    free, share = memory_info(here)
    if count() > 1 and block.size > free:
        memory.release(block)
        raise errors.MemoryError(
            f"cuMemAlloc failed: out of memory: {block.size:,} bytes asked of device {here}, "
            f"which has {free:,} of its {share:,} bytes free (the {count()} simulated devices "
            "share settings.device_memory, CUDA_SIM_MEMORY, equally)")
    with _lock:
        _owner[block.address] = (handle, block.size)
        if handle is not None:
            handle.allocations.add(allocation)


def forget_allocation(block) -> None:
    with _lock:
        _owner.pop(block.address, None)


def device_of(address):
    """The number of the device whose memory holds ``address``, or None when it is no
    allocation of ours."""
    block = memory.find(address)
    with _lock:
        found = None if block is None else _owner.get(block.address)
    return None if found is None else _device_of(found[0])


def access_problem(address):
    """Why a kernel of the current context may not use the memory at ``address``: None (it may,
    or the memory is no allocation of ours: the pointer checks say so), or (kind, what the
    memory is, what to do). Memory of another live context of the same device is fine: the
    H200 ran a kernel on it without a fault (driver 580)."""
    where, device = device_of(address), current_device()
    if where is None or where == device or (device, where) in _peers:
        return None
    return "no peer access", f"{memory.block_words(memory.find(address))} on device {where}", (
        f"Copy the data to device {device} first (memcpy_dtod or memcpy_peer), or let device "
        f"{device} read device {where}'s memory: with device {device}'s context current, "
        f"Context.enable_peer_access(device {where}'s context)")


def check_access(addresses, what: str, kernel=None) -> None:
    """LaunchError, as a GPU's illegal address, when a kernel of the current context (``what``,
    in words; ``kernel``, its name where it has one) is given memory it may not use.
    ``addresses``: (words for the argument, address) pairs."""
    for who, address in addresses:
        problem = access_problem(address)
        if problem is not None:
            kind, memory_words, advice = problem
            raise errors.LaunchError(
                f"cuLaunchKernel failed: an illegal memory access was encountered in {what}, "
                f"which runs on device {current_device()}: {who} points to {memory_words}. "
                f"{advice}. (On a GPU this mistake ends the context: every later call in it "
                "fails.)", kind=kind, kernel=kernel, address=address)


def adopt_module(module) -> None:
    """Note that a module just loaded belongs to the current context (which it keeps from being
    garbage collected before it, as PyCUDA's module holds its context), and charge its __device__
    arrays (``module.device_arrays``) against the device's memory until it is unloaded (garbage
    collected); MemoryError when they do not fit."""
    weakref.finalize(module, budget.charge_module(module.device_arrays))
    _module_home[module] = current_handle()
    _module_ward[module] = current()


def check_alive(module, failure: str, what="this module") -> None:
    """LogicError (``failure``: "<call> failed: <what CUDA says>", then why) when ``module``'s
    context was destroyed."""
    home = _module_home.get(module)
    if home is not None and not home.alive:
        raise errors.LogicError(f"{failure} ({home.dead_words(what)})")


def check_launch(module, kernel: str, pointers) -> None:
    """Before a launch of ``kernel`` from ``module`` with ``pointers``, (parameter number,
    address) pairs: the module must be alive and the current device's, and the memory one its
    kernels may use (``access_problem``)."""
    check_alive(module, "cuLaunchKernel failed: invalid resource handle",
                f"the module of kernel {kernel!r}")
    home, here = _module_home.get(module), current_device()
    if _device_of(home) != here:
        raise errors.LogicError(
            f"cuLaunchKernel failed: invalid resource handle (kernel {kernel!r} comes from a "
            f"module compiled while device {_device_of(home)}'s context was current, and device "
            f"{here}'s context is current now: a module belongs to one context; compile it "
            f"again with device {here}'s context current, one module a device)")
    check_access([(f"parameter #{i}", address) for i, address in pointers], f"kernel {kernel!r}",
                 kernel)
