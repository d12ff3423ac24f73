"""Several simulated devices: which one each thread works on, and what belongs to which.

``settings.devices`` (``CUDA_SIM_DEVICES``, default 1) devices are presented, numbered from 0, so
that code written for several GPUs runs on a laptop. They all run on the same CPU, one launch at
a time: each holds its own results, but they do not run side by side, and a speed-up measured
across them means nothing.

What this module keeps, and the rules a GPU enforces that it checks:

- **Contexts are current per thread.** Each host thread has its own stack of contexts (``push``,
  ``pop``); what a thread does goes to the device of the context on top. (With none, the
  simulator uses device 0, where PyCUDA would raise: the notebooks' main thread never pushes one
  of its own.)
- **Memory belongs to a device**: the one whose context was current when it was allocated, and
  each device has an equal share of settings.device_memory (running out is ``MemoryError``). A
  kernel may use another device's memory only once its context has enabled peer access to that
  device (``Context.enable_peer_access``); otherwise the launch fails with ``LaunchError``, where
  a GPU would fault with an illegal address and lose its context. Copies (``memcpy_dtod``,
  ``memcpy_peer``) work between any two devices, as they do on a GPU with unified addressing.
- **A module belongs to the context it was compiled in.** Its kernels cannot be launched while
  another device's context is current: ``LogicError``, "invalid resource handle", as on a GPU.
  Compile the module once a device.

``driver.Device`` and ``driver.Context`` hold no state of their own beyond their device's number:
they call the functions here.
"""

from __future__ import annotations

import threading
import weakref

from .. import errors
from . import memory
from ..settings import settings

_local = threading.local()   # .stack: this thread's contexts, innermost last
_lock = threading.Lock()
_owner = {}                  # allocation address -> (device it belongs to, bytes)
_peers = set()               # (a, b): device a's kernels may use device b's memory
_module_home = weakref.WeakKeyDictionary()   # loaded module -> device it was compiled for
_primary = {}                # device number -> its primary context


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
def _stack() -> list:
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


def current():
    """This thread's current context, or None."""
    stack = _stack()
    return stack[-1] if stack else None


def current_device() -> int:
    """The number of the device this thread works on: its current context's, else 0."""
    context = current()
    return 0 if context is None else context._device_number


def push(context) -> None:
    check_number(context._device_number)
    _stack().append(context)


def pop():
    stack = _stack()
    if not stack:
        raise errors.LogicError("cuCtxPopCurrent failed: invalid device context (no context "
                                   "is current in this thread)")
    return stack.pop()


def detach(context) -> None:
    """Drop ``context`` from this thread's stack, wherever it is."""
    stack = _stack()
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is context:
            del stack[i]
            return


def primary(number, make):
    """Device ``number``'s primary context (one a device, made by ``make()`` the first time)."""
    with _lock:
        if number not in _primary:
            _primary[number] = make()
        return _primary[number]


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


# ---- what belongs to which device -------------------------------------------------------------
def memory_info(number: int):
    """(free, total) bytes of device ``number``: all of settings.device_memory for one device,
    an equal share of it for each of several."""
    used, total = memory.usage()
    if count() == 1:
        return max(total - used, 0), total
    share = total // count()
    with _lock:
        mine = sum(size for device, size in _owner.values() if device == number)
    return max(share - mine, 0), share


def adopt_allocation(block) -> None:
    """Note that a new allocation belongs to the current device; MemoryError (the allocation
    given back) when that device's share of the memory is used up."""
    here = current_device()
    free, share = memory_info(here)
    if count() > 1 and block.size > free:
        memory.release(block)
        raise errors.MemoryError(
            f"cuMemAlloc failed: out of memory: {block.size:,} bytes asked of device {here}, "
            f"which has {free:,} of its {share:,} bytes free (the {count()} simulated devices "
            "share settings.device_memory, CUDA_SIM_MEMORY, equally)")
    with _lock:
        _owner[block.address] = (here, block.size)


def forget_allocation(block) -> None:
    with _lock:
        _owner.pop(block.address, None)


def owner(address: int):
    """The device the allocation holding ``address`` belongs to, or None (not ours)."""
    block = memory.find(address)
    if block is None:
        return None
    with _lock:
        found = _owner.get(block.address)
    return None if found is None else found[0]


def adopt_module(module) -> None:
    """Note that a module just loaded belongs to the current device's context."""
    _module_home[module] = current_device()


def check_launch(module, kernel: str, pointers) -> None:
    """Before a launch of ``kernel`` from ``module`` with ``pointers``, (parameter number,
    address) pairs: the module must be this device's, and the memory this device's or a peer's
    it has enabled."""
    here = current_device()
    home = _module_home.get(module, here)
    if home != here:
        raise errors.LogicError(
            f"cuLaunchKernel failed: invalid resource handle (kernel {kernel!r} comes from a "
            f"module compiled while device {home}'s context was current, and device {here}'s "
            "context is current now: a module belongs to one context; compile it again with "
            f"device {here}'s context current, one module a device)")
    for i, address in pointers:
        where = owner(address) if address is not None else None
        if where is None or where == here or (here, where) in _peers:
            continue
        raise errors.LaunchError(
            f"cuLaunchKernel failed: an illegal memory access was encountered in kernel "
            f"{kernel!r}: it runs on device {here}, and parameter #{i} points to memory of "
            f"device {where}. Copy the data to device {here} first (memcpy_dtod or memcpy_peer), "
            f"or let device {here} read device {where}'s memory: with device {here}'s context "
            f"current, Context.enable_peer_access(device {where}'s context). (On a GPU this "
            "mistake ends the context: every later call in it fails.)")
