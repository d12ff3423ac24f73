"""Kernel arguments: each read and checked once, into the record of one launch.

The compiled module tells, for each kernel, the C type of every parameter (include/sim_launch.h).
Arguments are checked against those types before anything runs: where PyCUDA would pack a wrong
value silently (a float64 for a `float`), the simulator says which parameter and what to pass,
and a pointer must point into device memory. What the checks read (each pointer's address, the
allocations behind them, the bytes passed) is kept in a `LaunchRecord`, which the runner, the race
check, the init check and the memory trace all read.

`In`, `Out` and `InOut` (pycuda.driver's) wrap a NumPy array that is copied to the device before
the launch and back after it.
"""

import ctypes
import dataclasses

import numpy as np

from .. import c_types
from ..errors import InvalidPointerError, LogicError
from ..machine import memory
from ..machine.allocations import (
    DeviceAllocation, ManagedAllocation, PointerHolderBase, address, mem_alloc)
from ..machine.copies import memcpy_dtoh, memcpy_htod


# ---- arguments that copy arrays (In, Out, InOut) ------------------------------------------------
class ArgumentHandler:
    def __init__(self, array):
        self.array = array
        self.dev_alloc = None

    def get_device_alloc(self):
        if self.dev_alloc is None:
            self.dev_alloc = mem_alloc(self.array.nbytes)
        return self.dev_alloc

    def pre_call(self, stream):
        pass


class In(ArgumentHandler):
    def pre_call(self, stream):
        memcpy_htod(self.get_device_alloc(), self.array)


class Out(ArgumentHandler):
    def post_call(self, stream):
        memcpy_dtoh(self.array, self.get_device_alloc())


class InOut(In, Out):
    pass


# ---- the launch record -------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class LaunchRecord:
    """One launch with its arguments read and checked: what the runner (launch.py), the race
    check, the init check and the memory trace (microscope/) share. ``addresses``: for each
    argument, the device address a pointer parameter receives (None for a value); ``pointers``:
    the C array of pointers to each argument's bytes, which ``keep`` holds; ``blocks``: the
    allocations (memory.Block) the pointers point into, checked after the launch for overruns.
    It holds no argument itself, as PyCUDA's launch holds none: a gpuarray that the host lets go
    of while its launch is queued is freed then, and the free runs the launch first (cuMemFree
    waits for the work that uses the memory: machine/streams.before_free)."""
    module: object
    kernel: object
    grid: tuple
    block: tuple
    shared: int
    addresses: tuple
    pointers: object
    keep: tuple
    blocks: tuple

    def on(self, module):
        """The same launch of the same-named kernel of another build of the module (the
        instrumented one)."""
        return dataclasses.replace(self, module=module, kernel=module.kernels[self.kernel.name])


def read(module, kernel, args, grid, block, shared):
    """The LaunchRecord of a launch of kernel with args, each checked against its parameter."""
    name, params = kernel.name, kernel.params
    if len(args) != len(params):
        sig = ", ".join(p.type_name for p in params)
        raise TypeError(f"kernel {name!r} takes {len(params)} parameters ({sig}); got {len(args)}")
    keep, addresses = [], []
    pointers = (ctypes.c_void_p * max(len(params), 1))()
    for i, (param, arg) in enumerate(zip(params, args)):
        value = _checked_pointer(i, name, param, arg) if param.kind == "P" else None
        data = ctypes.c_uint64(value) if param.kind == "P" else ctypes.create_string_buffer(
            _scalar_bytes(i, name, param, arg), param.size)
        addresses.append(value)
        keep.append(data)
        pointers[i] = ctypes.addressof(data)
    blocks = {}
    for value in addresses:
        found = memory.find(value) if value is not None else None
        if found is not None:
            blocks[found.base] = found
    return LaunchRecord(module, kernel, tuple(grid), tuple(block), shared, tuple(addresses),
                        pointers, tuple(keep), tuple(blocks.values()))


def pointer_value(arg):
    """The device address an argument stands for, or None when it stands for none."""
    if isinstance(arg, (DeviceAllocation, PointerHolderBase)):
        return address(arg)
    if isinstance(arg, ArgumentHandler):
        return int(arg.get_device_alloc())
    if hasattr(arg, "gpudata"):
        return address(arg.gpudata)
    if isinstance(arg, np.ndarray) and isinstance(arg.base, ManagedAllocation):
        return address(arg.base)  # PyCUDA passes a managed array as its pointer, by its base
    if isinstance(arg, (np.intp, np.uintp, np.int64, np.uint64)):
        return int(arg)
    interface = getattr(arg, "__cuda_array_interface__", None)
    if interface:  # another library's device array
        return int(interface["data"][0])
    return None


def _checked_pointer(i, name, param, arg):
    try:
        value = pointer_value(arg)
    except LogicError as e:  # a freed allocation
        raise InvalidPointerError(
            f"cuLaunchKernel failed: parameter #{i} (0-based, '{param.type_name}') of "
            f"kernel {name!r}: {e}; allocate it again (or keep it until the kernel has "
            "run)", kind="use after free", parameter=i, kernel=name) from None
    if value is None:
        advice = ("Copy a NumPy array to the device first (gpuarray.to_gpu(a), or "
                  "drv.mem_alloc + drv.memcpy_htod), or wrap it: drv.In(a), drv.Out(a).")
        raise _bad_argument(i, name, param, arg, advice)
    _check_array_element_type(i, name, param, arg)
    _check_address(i, name, param, value)
    return value


# ---- the checks --------------------------------------------------------------------------------
def address_for_prepared(arg):
    """A prepared "P" takes what struct.pack("P", x) takes: anything int() accepts."""
    value = pointer_value(arg)
    return int(arg) if value is None else value


def _bad_argument(i, name, param, arg, advice):
    got = f"Python {type(arg).__name__}" if type(arg) in (int, float, bool) else (
        f"numpy.{arg.dtype}" if isinstance(arg, (np.generic, np.ndarray)) else type(arg).__name__)
    return TypeError(f"invalid type on parameter #{i} (0-based) of kernel {name!r}: the kernel "
                     f"takes '{param.type_name}' ({param.size} bytes), got {got}. {advice}")


def _scalar_bytes(i, name, param, arg):
    """The bytes to pass for a value parameter, after checking arg fits the C type exactly."""
    c_type = param.type_name
    numpy_name = c_types.numpy_name(param.kind, param.size)
    advice = f"Pass numpy.{numpy_name}(value)." if numpy_name else ""
    if type(arg) in (int, float, bool):
        raise _bad_argument(i, name, param, arg, "A Python number has no C type: " + advice)
    if param.kind in "iu":
        ok = isinstance(arg, (np.integer, np.bool_)) and arg.dtype.itemsize == param.size
    elif param.kind == "f":
        ok = isinstance(arg, np.floating) and arg.dtype.itemsize == param.size
    else:  # a struct passed by value: bytes of the same size (np.void, or an array holding them)
        ok = isinstance(arg, (np.void, np.ndarray, np.generic)) and arg.nbytes == param.size
        advice = f"Pass a numpy value of exactly {param.size} bytes for '{c_type}'."
    if not ok:
        if isinstance(arg, np.ndarray) and param.kind in "iuf":
            advice = "An array goes to a pointer parameter, after gpuarray.to_gpu or drv.In."
        raise _bad_argument(i, name, param, arg, advice)
    return np.ascontiguousarray(arg).tobytes()


def _check_address(i, name, param, value):
    """A pointer must point into device memory (or be NULL): on the simulator, where host and
    device share one address space, a host address or a stale one would let the kernel write
    over the Python process's own memory."""
    problem = memory.check_pointer(value)
    if problem:
        raise InvalidPointerError(
            f"cuLaunchKernel failed: invalid argument: parameter #{i} (0-based) of kernel "
            f"{name!r} ('{param.type_name}') is the address 0x{value:x}, {problem}. Pass a "
            "DeviceAllocation, a GPUArray, or an address inside one.",
            parameter=i, kernel=name, **memory.fault_facts(value))


def _check_array_element_type(i, name, param, arg):
    """A float64 array passed to a `float *` reads as garbage on a GPU: say so instead."""
    if isinstance(arg, ArgumentHandler):
        array = arg.array
    elif hasattr(arg, "gpudata") or isinstance(arg, np.ndarray):  # a GPUArray, a managed array;
        array = arg                                  # a bare address (an integer) has no type
    else:
        return
    dtype, want = getattr(array, "dtype", None), c_types.number_dtype(c_types.pointed_to(
        param.type_name))
    if dtype is None or want is None or 1 in (dtype.itemsize, want.itemsize) or \
            dtype.kind not in "fiuc" or want.kind not in "fiuc":
        return  # byte buffers, bools and structs may be viewed as anything
    if _number_kind(dtype) != _number_kind(want):
        numpy_type = want.name if want.kind in "fc" else c_types.numpy_name("i", want.itemsize)
        if dtype.kind == "c":
            what = f"{dtype} (pairs of {dtype.itemsize // 2}-byte floats: real, imaginary)"
            fix = (f"a.real.astype(np.{numpy_type}) for the real parts, or a.view(np.float"
                   f"{dtype.itemsize * 4}) for both side by side")
        else:
            what, fix = f"{dtype} ({dtype.itemsize}-byte elements)", f"a.astype(np.{numpy_type})"
        raise TypeError(
            f"parameter #{i} (0-based) of kernel {name!r} is '{param.type_name}', but the array "
            f"holds {what}: the kernel would read its bytes as the wrong type. Convert it first, "
            f"e.g. {fix}. (On a GPU this mistake gives wrong numbers without an error.)")


def _number_kind(dtype):
    """What a kernel reads an element as: ('f', bytes), ('c', bytes) or ('i', bytes)."""
    return ("i" if dtype.kind in "iu" else dtype.kind), dtype.itemsize
