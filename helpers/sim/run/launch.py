"""Launching a simulated kernel: launch limits, the launch, and the runtime's error report.

Its arguments are read and checked first, once, into a launch record (arguments.py). A launch on
a stream is queued (streams.py); one in the default stream runs at once. After it, the unguarded bytes beside the arrays it was given
are checked (memory.py), and a write there is traced to its thread by a second, watched run.
"""

import ctypes
import functools
import numbers
import threading
import time

from .. import unsupported
from ..compile import warned
from ..compile.module import ErrorReport
from ..errors import LaunchBoundsError, LaunchError, LogicError, MemoryError, OutOfBoundsError
from ..errors import TimeLimitError
from ..machine import device, devices, memory, stacks, streams, written
from ..machine.device import LIMITS
from ..microscope import trace
from ..settings import settings
from . import arguments, prepared, printed
from . import operators, report as launch_report


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


def max_dynamic_shared(kernel):
    """The bytes of dynamic shared memory a launch of `kernel` may ask for: what is left of the
    48 KiB every block may have beside its __shared__ arrays, or, once the kernel opted in with
    set_attribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, n), n (cuFuncGetAttribute's answer either way)."""
    if kernel.max_dynamic_shared is not None:
        return kernel.max_dynamic_shared
    return max(LIMITS["MAX_SHARED_MEMORY_PER_BLOCK"] - static_room(kernel), 0)


def static_room(kernel):
    """The shared memory a block of `kernel` sets aside for its __shared__ arrays: their bytes
    rounded up to 16 (the H200 answered 49,136 = 48 KiB - 16 for a kernel whose arrays hold 4)."""
    return -(-kernel.static_shared // 16) * 16


def check_launch(block, grid, shared, static_shared, max_dynamic):
    """Refuse a launch a GPU refuses (cuLaunchKernel's invalid argument). max_dynamic: the bytes
    of dynamic shared memory the kernel may ask for (max_dynamic_shared)."""
    limits = LIMITS
    bx, by, bz = block
    gx, gy, gz = grid
    problem = None
    if min(block) < 1 or min(grid) < 1:
        problem = f"every block and grid dimension must be at least 1 (block={block}, grid={grid})"
    elif bx * by * bz > limits["MAX_THREADS_PER_BLOCK"]:
        problem = (f"a block of {bx}x{by}x{bz} = {bx * by * bz} threads is more than the "
                   f"{limits['MAX_THREADS_PER_BLOCK']} threads a block may have")
    elif bx > limits["MAX_BLOCK_DIM_X"] or by > limits["MAX_BLOCK_DIM_Y"] or bz > limits["MAX_BLOCK_DIM_Z"]:
        problem = (f"block {block} is larger than the limits ({limits['MAX_BLOCK_DIM_X']}, "
                   f"{limits['MAX_BLOCK_DIM_Y']}, {limits['MAX_BLOCK_DIM_Z']})")
    elif gx > limits["MAX_GRID_DIM_X"] or gy > limits["MAX_GRID_DIM_Y"] or gz > limits["MAX_GRID_DIM_Z"]:
        problem = (f"grid {grid} is larger than the limits ({limits['MAX_GRID_DIM_X']}, "
                   f"{limits['MAX_GRID_DIM_Y']}, {limits['MAX_GRID_DIM_Z']})")
    elif shared > max_dynamic:
        problem = (f"{shared} bytes of dynamic shared memory on top of {static_shared} of "
                   f"__shared__ arrays is more than the {max_dynamic + static_shared} bytes "
                   "this kernel's blocks may have")
        if shared + static_shared <= device.limit("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"):
            problem += ("; above 48 KiB a kernel opts in first: func.set_attribute("
                        "drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, "
                        f"{shared})")
    if problem:
        raise LogicError(f"cuLaunchKernel failed: invalid argument ({problem})")


def max_threads(kernel):
    """The threads a block of `kernel` may have: the first number of its __launch_bounds__
    where it has one, else the device's limit (cuFuncGetAttribute's MAX_THREADS_PER_BLOCK)."""
    return min(kernel.max_threads or LIMITS["MAX_THREADS_PER_BLOCK"],
               LIMITS["MAX_THREADS_PER_BLOCK"])


def check_bounds(kernel, block):
    """Refuse a block of more threads than `kernel`'s __launch_bounds__ allows, as a GPU refuses
    it (cuLaunchKernel's CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, a LaunchError in PyCUDA)."""
    threads = block[0] * block[1] * block[2]
    if threads > max_threads(kernel):
        raise LaunchBoundsError(
            "cuLaunchKernel failed: too many resources requested for launch (kernel "
            f"{kernel.name!r} is declared __launch_bounds__({kernel.max_threads}): at most "
            f"{kernel.max_threads} threads a block, and block {block} has {threads})",
            max_threads=kernel.max_threads, threads=threads, block_dim=block, kernel=kernel.name)


# ---- running it ------------------------------------------------------------------------------------
_launch_lock = threading.Lock()  # one launch at a time: the runtime's signal handlers are global


def _execute(record, watch=None):
    """Run one launch (a LaunchRecord) to its end: (status name, ErrorReport). watch: None, or a
    list of (address, nbytes) to check after every thread, on one worker (the search for a
    culprit)."""
    module, kernel, grid, block = record.module, record.kernel, record.grid, record.block
    module.check_unchanged()
    lib, name = module.lib, kernel.name
    threads = block[0] * block[1] * block[2] if kernel.fibers else 1
    wanted = 1 if watch is not None else min(settings.workers, grid[0] * grid[1] * grid[2])
    ranges = [v for r in watch or () for v in r]
    watched = (ctypes.c_uint64 * max(len(ranges), 1))(*ranges)
    err = ErrorReport()
    limit = settings.time_limit
    with _launch_lock:
        try:
            firsts, workers = stacks.for_launch(wanted, threads)
        except MemoryError as err:
            raise MemoryError(f"cuLaunchKernel failed: out of memory: {err}") from None
        lib.sim_set_heap(ctypes.addressof(device.heap(devices.current_handle())))  # malloc's heap
        lib.sim_set_shared(*module.shared_variables)  # filled before each block
        handle = lib.sim_launch_start(kernel.index, (ctypes.c_uint * 3)(*grid),
                                      (ctypes.c_uint * 3)(*block), record.shared,
                                      record.pointers, workers,
                                      firsts, int(watch is not None), watched,
                                      len(ranges) // 2)
        if not handle:
            raise LaunchError(f"cuLaunchKernel failed: out of memory (kernel {name!r})")
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


def run(record, blocks=None):
    """Run one launch (a LaunchRecord); a failure raises LaunchError, an interrupt
    KeyboardInterrupt. blocks: the allocations whose slacks (memory.py) are checked afterwards
    (None: those the record's arguments point into)."""
    blocks = record.blocks if blocks is None else blocks
    status, err = _execute(record)
    printed.wait_until_forwarded()
    damaged = [] if status != "OK" else [r for b in blocks for r in memory.damaged_slacks(b)]
    if status == "OVERRUN" or damaged:
        status, err = _find_culprit(record, blocks, damaged, (status, err))
    if status == "INTERRUPTED":
        raise KeyboardInterrupt(f"kernel {record.kernel.name!r} was interrupted")
    if status in operators.STATUSES:
        raise operators.error(record, status, err)
    if status != "OK":
        raise launch_report.error(record.module, record.kernel.name, status, err, record)


def _find_culprit(record, blocks, damaged, found):
    """A thread wrote into the few unguarded bytes next to an array (or past the launch's shared=
    bytes), which the launch showed only when it ended. Run it again on one worker, watching those
    bytes (their pages read-only on x86-64 Linux, so that the write faults at its line; elsewhere
    compared whenever a thread stops): the first thread that changes them is the culprit, reported
    as the fault a GPU's memcheck would report. When the second run does not write there again (a
    kernel whose first run changed its own input), the overrun is reported without the thread."""
    first = memory.first_damaged_byte(*damaged[0]) if damaged else None
    for b in blocks:
        memory.rearm(b)
    status, err = _execute(record, watch=damaged)
    for b in blocks:
        memory.rearm(b)
    if status != "OK":
        return status, err
    if first is not None:
        raise OutOfBoundsError(
            f"cuLaunchKernel failed: {launch_report.STATUS_TEXT['FAULT']} in kernel "
            f"{record.kernel.name!r}: a write "
            f"to address 0x{first:x}, {memory.describe_address(first, by_a_kernel=True)}. "
            "(Found after the launch; a second run did not write there again, so which thread "
            "did it is not known.)", kernel=record.kernel.name, address=first, is_write=True,
            **memory.fault_facts(first))
    return found


def _run(record, traced=None):
    """Run the launch now (traced: trace.plan() when it was made)."""
    if traced:  # a memory trace, the race check or the init check: the instrumented build
        trace.launch(traced, record, run)
    else:
        written.forget_all()  # what this launch writes is not seen: see written.py
        run(record)


def _attribute_name(attr):
    """"NUM_REGS" for function_attribute.NUM_REGS (a GPU's enumeration or the simulator's),
    "num_regs" or "NUM_REGS"."""
    return str(attr).rsplit(".", 1)[-1].upper()


class Function:
    """A kernel of a simulated module, called like pycuda.driver.Function."""

    def __init__(self, module, kernel):
        self._module, self._kernel = module, kernel
        self.name, self._params = kernel.name, kernel.params

    @property
    def source(self):
        """The text its module was compiled from, as SourceModule was given it (``#line``
        directives included): what a checker reads to find a line of the learner's code."""
        return self._module.source

    @property
    def compiler_warnings(self):
        """What g++ warned about this kernel's code (compile/warned.py: CompilerWarning records,
        a local read before anything was stored in it); () for none."""
        return warned.of_kernel(self._module, self._kernel)

    def __call__(self, *args, block=None, grid=(1, 1), stream=None, shared=0, texrefs=(),
                 time_kernel=False):
        if block is None:
            raise ValueError("must specify block size")
        block, grid = _dims(block, "block"), _dims(grid, "grid")
        shared = _shared_bytes(shared)
        check_launch(block, grid, shared, self._kernel.static_shared,
                     max_dynamic_shared(self._kernel))
        check_bounds(self._kernel, block)
        if time_kernel and stream is not None:
            raise ValueError("Can't time the kernel on an asynchronous invocation")  # as PyCUDA
        handlers = [a for a in args if isinstance(a, arguments.ArgumentHandler)]
        record = arguments.read(self._module, self._kernel, args, grid, block, shared)
        devices.check_launch(self._module, self.name, [(i, a) for i, a in
                                                       enumerate(record.addresses) if a is not None])
        for h in handlers:
            h.pre_call(stream)
        traced = trace.plan()  # a memory trace, the race check or the init check in force now

        if stream is None:  # the legacy default stream: after the other streams' work, now
            streams.wait_default()
            start = time.perf_counter()
            _run(record, traced)
            elapsed = time.perf_counter() - start
        else:  # queued: it runs when the host waits for the stream (streams.py)
            streams.submit(stream, functools.partial(_run, record, traced),
                           f"kernel {self.name!r}", touches=record.blocks)
        for h in handlers:
            if hasattr(h, "post_call"):
                h.post_call(stream)
        if time_kernel:
            return elapsed

    # the prepared-call interface
    def prepare(self, arg_types, texrefs=()):
        self.arg_format = prepared.format_of(arg_types)
        self._prepared = prepared.parse(self.arg_format)
        return self

    def _convert(self, args):
        """As PyCUDA's prepared calls do, convert each argument to its prepared C type."""
        if not hasattr(self, "_prepared"):
            raise LogicError(f"kernel {self.name!r}: call prepare() before prepared_call")
        return prepared.convert(self._prepared, args, arguments.address_for_prepared)

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
        name = _attribute_name(attr)
        known = {"SHARED_SIZE_BYTES": self._kernel.static_shared,
                 "MAX_THREADS_PER_BLOCK": max_threads(self._kernel),
                 "MAX_DYNAMIC_SHARED_SIZE_BYTES": max_dynamic_shared(self._kernel)}
        if name not in known:
            raise unsupported.not_provided(
                "pycuda.driver.Function", name.lower(),
                f"For kernel {self.name!r}, registers, local memory and the other figures of "
                "the compiled code are the GPU compiler's decision (ptxas, for one GPU "
                "architecture); the simulator compiles the kernel for this CPU, which has no "
                "such figure, and makes none up. `nvcc -Xptxas -v` prints them without a GPU "
                "where the CUDA toolkit is installed; on a GPU, PyCUDA's Function has them. "
                "The simulator knows shared_size_bytes, max_threads_per_block and "
                "max_dynamic_shared_size_bytes.")
        return known[name]

    def set_attribute(self, attr, value):
        """cuFuncSetAttribute. MAX_DYNAMIC_SHARED_SIZE_BYTES is how a kernel asks for more than
        48 KiB of shared memory a block: up to the device's opt-in limit, its __shared__ arrays
        included (227 KiB on an H200), refused beyond it as a GPU refuses it."""
        name = _attribute_name(attr)
        if name != "MAX_DYNAMIC_SHARED_SIZE_BYTES":
            raise unsupported.not_provided(
                "pycuda.driver.Function", f"set_attribute({name})",
                "The simulator sets max_dynamic_shared_size_bytes only; the other attributes "
                "are hints to a GPU's scheduler (the shared memory carveout) or read-only.")
        room = device.limit("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN") - static_room(self._kernel)
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"set_attribute's value must be an int, not a "
                            f"{type(value).__name__} (PyCUDA refuses it too)")
        if not 0 <= value <= room:
            raise LogicError(
                f"cuFuncSetAttribute failed: invalid argument (kernel {self.name!r}: {value} "
                f"bytes of dynamic shared memory; with its {self._kernel.static_shared} bytes "
                f"of __shared__ arrays (a block sets aside {static_room(self._kernel)}) it may "
                f"have at most {room})")
        self._kernel.max_dynamic_shared = int(value)

    def __getattr__(self, name):
        if name.startswith("_") or name == "arg_format":
            raise AttributeError(name)
        return self.get_attribute(name)
