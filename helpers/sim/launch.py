"""Launching a simulated kernel: argument checks, launch limits, and the runtime's error report.

The compiled module tells, for each kernel, the C type of every parameter (include/sim_launch.h).
Arguments are checked against those types before anything runs: where PyCUDA would pack a wrong
value silently (a float64 for a `float`), the simulator says which parameter and what to pass,
and a pointer must point into device memory. A launch on a stream is queued (streams.py); one
in the default stream runs at once. After it, the unguarded bytes beside the arrays it was given
are checked (memory.py), and a write there is traced to its thread by a second, watched run.
"""

import ctypes
import numbers
import re
import threading
import time

import numpy as np

from . import (device, devices, driver, errors, launch_report, memory, prepared, printed, stacks,
               streams, trace, written)
from .errors import InvalidPointerError, OutOfBoundsError, TimeLimitError
from .module import ErrorReport
from .settings import settings


# ---- argument checks ---------------------------------------------------------------------------
def _pointer_value(arg):
    if isinstance(arg, (driver.DeviceAllocation, driver.PointerHolderBase)):
        return driver._address(arg)
    if isinstance(arg, driver.ArgumentHandler):
        return int(arg.get_device_alloc())
    if hasattr(arg, "gpudata"):
        return driver._address(arg.gpudata)
    if isinstance(arg, (np.intp, np.uintp, np.int64, np.uint64)):
        return int(arg)
    interface = getattr(arg, "__cuda_array_interface__", None)
    if interface:  # another library's device array
        return int(interface["data"][0])
    return None


def _address_for_prepared(arg):
    """A prepared "P" takes what struct.pack("P", x) takes: anything int() accepts."""
    value = _pointer_value(arg)
    return int(arg) if value is None else value


def _bad_argument(i, name, param, arg, advice):
    got = f"Python {type(arg).__name__}" if type(arg) in (int, float, bool) else (
        f"numpy.{arg.dtype}" if isinstance(arg, (np.generic, np.ndarray)) else type(arg).__name__)
    return TypeError(f"invalid type on parameter #{i} (0-based) of kernel {name!r}: the kernel "
                     f"takes '{param.type_name}' ({param.size} bytes), got {got}. {advice}")


def _scalar_bytes(i, name, param, arg):
    """The bytes to pass for a value parameter, after checking arg fits the C type exactly."""
    c_type = param.type_name
    numpy_name = {("i", 1): "int8", ("i", 2): "int16", ("i", 4): "int32", ("i", 8): "int64",
                  ("u", 1): "uint8", ("u", 2): "uint16", ("u", 4): "uint32", ("u", 8): "uint64",
                  ("f", 4): "float32", ("f", 8): "float64"}.get((param.kind, param.size))
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


def pack_arguments(name, params, args):
    """A ctypes array of pointers to each argument's bytes, plus what keeps those bytes alive."""
    if len(args) != len(params):
        sig = ", ".join(p.type_name for p in params)
        raise TypeError(f"kernel {name!r} takes {len(params)} parameters ({sig}); got {len(args)}")
    keep, pointers = [], (ctypes.c_void_p * max(len(params), 1))()
    for i, (param, arg) in enumerate(zip(params, args)):
        if param.kind == "P":
            try:
                value = _pointer_value(arg)
            except driver.LogicError as e:  # a freed allocation
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
            data = ctypes.c_uint64(value)
        else:
            data = ctypes.create_string_buffer(_scalar_bytes(i, name, param, arg), param.size)
        keep.append(data)
        pointers[i] = ctypes.addressof(data)
    return pointers, keep


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
            kind=memory.fault_facts(value).get("kind", "wild pointer"), parameter=i, kernel=name)


# ---- launch limits, as a GPU checks them ---------------------------------------------------------
def _dims(value, what):
    """A launch's block or grid as three ints, refused as PyCUDA refuses them (a TypeError, from
    Boost.Python on a GPU): a float anywhere, and in a block anything but a Python int (PyCUDA
    takes no NumPy integer there)."""
    wanted = int if what == "block" else numbers.Integral
    for v in value:
        if isinstance(v, bool) or not isinstance(v, wanted):
            raise TypeError(
                f"{what}={tuple(value)!r}: each of its sizes must be a Python int, and "
                f"{v!r} is a {type(v).__name__} (PyCUDA refuses it too). Write the sizes as "
                f"ints: {what}=({', '.join(str(int(x)) for x in value)}); // divides without "
                "making a float.")
    dims = tuple(int(v) for v in value) + (1,) * (3 - len(value))
    if len(dims) != 3:
        raise ValueError(f"{what} must have at most 3 entries, got {value!r}")
    return dims


def _shared_bytes(shared):
    """The launch's dynamic shared memory in bytes, refused as PyCUDA refuses it: not an int is
    a TypeError, a negative number an OverflowError (it is an unsigned int)."""
    if shared is None:
        return 0
    if isinstance(shared, bool) or not isinstance(shared, numbers.Integral):
        raise TypeError(f"shared={shared!r}: the bytes of dynamic shared memory must be an int, "
                        f"not a {type(shared).__name__} (PyCUDA refuses it too)")
    if shared < 0:
        raise OverflowError(f"shared={shared}: can't convert negative value to unsigned int (as "
                            "PyCUDA says): the bytes of dynamic shared memory are 0 or more")
    return int(shared)


def check_launch(block, grid, shared, static_shared=0):
    limits = driver.LIMITS
    bx, by, bz = block
    gx, gy, gz = grid
    problem = None
    if min(block) < 1 or min(grid) < 1:
        problem = f"every block and grid dimension must be at least 1 (block={block}, grid={grid})"
    elif bx * by * bz > limits["MAX_THREADS_PER_BLOCK"]:
        problem = (f"a block of {bx}x{by}x{bz} = {bx * by * bz} threads is more than the "
                   f"{limits['MAX_THREADS_PER_BLOCK']} threads a block may have")
    elif bx > limits["MAX_BLOCK_DIM_X"] or by > limits["MAX_BLOCK_DIM_Y"] or bz > limits["MAX_BLOCK_DIM_Z"]:
        problem = f"block {block} is larger than the limits (1024, 1024, 64)"
    elif gx > limits["MAX_GRID_DIM_X"] or gy > limits["MAX_GRID_DIM_Y"] or gz > limits["MAX_GRID_DIM_Z"]:
        problem = f"grid {grid} is larger than the limits (2**31-1, 65535, 65535)"
    elif shared + static_shared > limits["MAX_SHARED_MEMORY_PER_BLOCK"]:
        problem = (f"{shared} bytes of dynamic shared memory on top of {static_shared} of "
                   f"__shared__ arrays is more than the {limits['MAX_SHARED_MEMORY_PER_BLOCK']} "
                   "bytes a block may have")
    if problem:
        raise driver.LogicError(f"cuLaunchKernel failed: invalid argument ({problem})")


# ---- running it ------------------------------------------------------------------------------------
_launch_lock = threading.Lock()  # one launch at a time: the runtime's signal handlers are global


def _execute(module, kernel, grid, block, shared, pointers, reverse=False, watch=None):
    """Run one launch to its end: (status name, ErrorReport). watch: None, or a list of
    (address, nbytes) to check after every thread, on one worker (the search for a culprit)."""
    lib, name = module.lib, kernel.name
    threads = block[0] * block[1] * block[2] if module.uses_fibers else 1
    wanted = 1 if watch is not None else min(settings.workers, grid[0] * grid[1] * grid[2])
    ranges = [v for r in watch or () for v in r]
    watched = (ctypes.c_uint64 * max(len(ranges), 1))(*ranges)
    err = ErrorReport()
    limit = settings.time_limit
    with _launch_lock:
        try:
            firsts, workers = stacks.for_launch(wanted, threads)
        except MemoryError as err:
            raise driver.MemoryError(f"cuLaunchKernel failed: out of memory: {err}") from None
        lib.sim_set_heap(ctypes.addressof(device.heap(devices.current())))  # malloc's heap
        handle = lib.sim_launch_start(kernel.index, (ctypes.c_uint * 3)(*grid),
                                      (ctypes.c_uint * 3)(*block), shared, pointers, workers,
                                      int(reverse), firsts, int(watch is not None), watched,
                                      len(ranges) // 2)
        if not handle:
            raise driver.LaunchError(f"cuLaunchKernel failed: out of memory (kernel {name!r})")
        deadline, timed_out = (None if limit is None else time.monotonic() + limit), False
        # A cancel is sent again at every wait until the workers have stopped, whatever a worker
        # was doing when the first one came.
        try:
            while not lib.sim_launch_wait(handle, 100):
                if timed_out or (deadline is not None and time.monotonic() > deadline):
                    lib.sim_launch_cancel(handle)
                    timed_out = True
        except KeyboardInterrupt:
            lib.sim_launch_cancel(handle)
            while not lib.sim_launch_wait(handle, 100):
                lib.sim_launch_cancel(handle)
            lib.sim_launch_finish(handle, ctypes.byref(err))
            raise KeyboardInterrupt(
                f"kernel {name!r} was interrupted; its output arrays may be half written") from None
        status = module.status_name[lib.sim_launch_finish(handle, ctypes.byref(err))]
    if status == "INTERRUPTED" and timed_out:
        raise TimeLimitError(f"cuLaunchKernel failed: kernel {name!r} ran longer than the time "
                             f"limit of {limit:g} s and was stopped (an endless loop?)",
                             seconds=limit, kernel=name)
    return status, err


def run(module, kernel, grid, block, shared, pointers, reverse=False, blocks=()):
    """Run one launch; a failure raises LaunchError, an interrupt KeyboardInterrupt. blocks: the
    allocations the kernel was given, whose slacks (memory.py) are checked afterwards."""
    status, err = _execute(module, kernel, grid, block, shared, pointers, reverse)
    printed.wait_until_forwarded()
    damaged = [] if status != "OK" else [r for b in blocks for r in memory.damaged_slacks(b)]
    if status == "OVERRUN" or damaged:
        status, err = _find_culprit(module, kernel, grid, block, shared, pointers, blocks,
                                    damaged, (status, err))
    if status == "INTERRUPTED":
        raise KeyboardInterrupt(f"kernel {kernel.name!r} was interrupted")
    if status != "OK":
        raise launch_report.error(kernel.name, status, err)


def _find_culprit(module, kernel, grid, block, shared, pointers, blocks, damaged, found):
    """A thread wrote into the few unguarded bytes next to an array (or past the launch's shared=
    bytes), which the launch showed only when it ended. Run it again on one worker, checking those
    bytes whenever a thread stops: the first thread that changes them is the culprit, reported as
    the fault a GPU's memcheck would report. When the second run does not write there again (a
    kernel whose first run changed its own input), the overrun is reported without the thread."""
    first = memory.first_damaged_byte(*damaged[0]) if damaged else None
    for b in blocks:
        memory.rearm(b)
    status, err = _execute(module, kernel, grid, block, shared, pointers, watch=damaged)
    for b in blocks:
        memory.rearm(b)
    if status != "OK":
        return status, err
    if first is not None:
        raise OutOfBoundsError(
            f"cuLaunchKernel failed: {launch_report.STATUS_TEXT['FAULT']} in kernel {kernel.name!r}: a write "
            f"to address 0x{first:x}, {memory.describe_address(first)}. (Found after the "
            "launch; a second run did not write there again, so which thread did it is not "
            "known.)", kernel=kernel.name, address=first, is_write=True,
            **memory.fault_facts(first))
    return found


def _allocations(args):
    """The allocations (memory.Block) that the pointer arguments point into."""
    blocks = {}
    for arg in args:
        address = _pointer_value(arg)
        found = memory.find(address) if address is not None else None
        if found is not None:
            blocks[found.base] = found
    return list(blocks.values())


# Pointed-to C types whose NumPy counterpart is unambiguous: (kind, bytes).
_POINTEES = {"float": ("f", 4), "double": ("f", 8), "short": ("i", 2), "short int": ("i", 2),
             "unsigned short": ("i", 2), "short unsigned int": ("i", 2), "int": ("i", 4),
             "unsigned int": ("i", 4), "long": ("i", 8), "long int": ("i", 8),
             "unsigned long": ("i", 8), "long unsigned int": ("i", 8), "long long": ("i", 8),
             "long long int": ("i", 8), "long long unsigned int": ("i", 8)}


def _pointee(param):
    """(kind, bytes) of what a pointer parameter points to, when it is a plain number type."""
    name = re.sub(r"\b(const|volatile|__restrict__)\b|\*", "", param.type_name).strip()
    return _POINTEES.get(" ".join(name.split()))


def _check_array_element_type(i, name, param, arg):
    """A float64 array passed to a `float *` reads as garbage on a GPU: say so instead."""
    if isinstance(arg, driver.ArgumentHandler):
        array = arg.array
    elif hasattr(arg, "gpudata"):  # a GPUArray; a bare address (an integer) has no element type
        array = arg
    else:
        return
    dtype, want = getattr(array, "dtype", None), _pointee(param)
    if dtype is None or want is None or dtype.itemsize == 1 or dtype.kind not in "fiu":
        return  # byte buffers and structs may be viewed as anything
    kind = "f" if dtype.kind == "f" else "i"
    if (kind, dtype.itemsize) != want:
        numpy_type = {("f", 4): "float32", ("f", 8): "float64", ("i", 2): "int16",
                      ("i", 4): "int32", ("i", 8): "int64"}[want]
        raise TypeError(
            f"parameter #{i} (0-based) of kernel {name!r} is '{param.type_name}', but the array "
            f"holds {dtype} ({dtype.itemsize}-byte elements): the kernel would read its bytes as "
            f"the wrong type. Convert it first, e.g. a.astype(np.{numpy_type}). (On a GPU this "
            "mistake gives wrong numbers without an error.)")


class Function:
    """A kernel of a simulated module, called like pycuda.driver.Function."""

    def __init__(self, module, kernel):
        self._module, self._kernel = module, kernel
        self.name, self._params = kernel.name, kernel.params

    def __call__(self, *args, block=None, grid=(1, 1), stream=None, shared=0, texrefs=(),
                 time_kernel=False):
        if block is None:
            raise ValueError("must specify block size")
        block, grid = _dims(block, "block"), _dims(grid, "grid")
        shared = _shared_bytes(shared)
        check_launch(block, grid, shared, self._kernel.static_shared)
        if time_kernel and stream is not None:
            raise ValueError("Can't time the kernel on an asynchronous invocation")  # as PyCUDA
        handlers = [a for a in args if isinstance(a, driver.ArgumentHandler)]
        pointers, keep = pack_arguments(self.name, self._params, args)
        devices.check_launch(self._module, self.name, [(i, _pointer_value(a)) for i, (p, a)
                                                       in enumerate(zip(self._params, args))
                                                       if p.kind == "P"])
        for h in handlers:
            h.pre_call(stream)

        blocks = _allocations(args)

        traced = trace.plan()  # a memory trace, the race check or the init check in force now

        def launch():
            self._run(grid, block, shared, pointers, args, blocks, keep, traced)

        if stream is None:  # the legacy default stream: after the other streams' work, now
            streams.wait_default()
            start = time.perf_counter()
            launch()
            elapsed = time.perf_counter() - start
        else:  # queued: it runs when the host waits for the stream (streams.py)
            streams.submit(stream, launch, f"kernel {self.name!r}", touches=blocks)
        for h in handlers:
            if hasattr(h, "post_call"):
                h.post_call(stream)
        if time_kernel:
            return elapsed

    def _run(self, grid, block, shared, pointers, args, blocks, keep, traced=None):
        """Run the launch now (blocks: the allocations its arguments point into; keep: the bytes
        that pointers point to; traced: trace.plan() when it was made)."""
        if traced:  # a memory trace, the race check or the init check: the instrumented build
            trace.launch(traced, self._module, self._kernel, grid, block, shared, pointers, args,
                         blocks)
        else:
            written.forget_all()  # what this launch writes is not seen: see written.py
            run(self._module, self._kernel, grid, block, shared, pointers, blocks=blocks)

    # the prepared-call interface
    def prepare(self, arg_types, texrefs=()):
        self.arg_format = prepared.format_of(arg_types)
        self._prepared = prepared.parse(self.arg_format)
        return self

    def _convert(self, args):
        """As PyCUDA's prepared calls do, convert each argument to its prepared C type."""
        if not hasattr(self, "_prepared"):
            raise driver.LogicError(f"kernel {self.name!r}: call prepare() before prepared_call")
        return prepared.convert(self._prepared, args, _address_for_prepared)

    def prepared_call(self, grid, block, *args, shared_size=0):
        return self(*self._convert(args), block=block, grid=grid, shared=shared_size)

    def prepared_timed_call(self, grid, block, *args, shared_size=0):
        elapsed = self(*self._convert(args), block=block, grid=grid, shared=shared_size,
                       time_kernel=True)
        return lambda: elapsed

    def prepared_async_call(self, grid, block, stream, *args, shared_size=0):
        return self(*self._convert(args), block=block, grid=grid, shared=shared_size,
                    stream=stream)

    def get_attribute(self, attr):
        name = str(attr).rsplit(".", 1)[-1].upper()   # "num_regs" or function_attribute.NUM_REGS
        known = {"SHARED_SIZE_BYTES": self._kernel.static_shared,
                 "MAX_THREADS_PER_BLOCK": driver.LIMITS["MAX_THREADS_PER_BLOCK"]}
        if name not in known:
            raise errors.not_provided(
                "pycuda.driver.Function", name.lower(),
                f"For kernel {self.name!r}, registers, local memory and the other figures of "
                "the compiled code are the GPU compiler's decision (ptxas, for one GPU "
                "architecture); the simulator compiles the kernel for this CPU, which has no "
                "such figure, and makes none up. `nvcc -Xptxas -v` prints them without a GPU "
                "where the CUDA toolkit is installed; on a GPU, PyCUDA's Function has them. "
                "The simulator knows shared_size_bytes and max_threads_per_block.")
        return known[name]

    def __getattr__(self, name):
        if name.startswith("_") or name == "arg_format":
            raise AttributeError(name)
        return self.get_attribute(name)
