"""One launch on the instrumented build of its module: the memory trace, the race check, the
init check and the bounds check.

A SourceModule compiles its plain build at once. The instrumented build (every load, store and
basic block of the learner's code calls the runtime: include/sim_trace.h) is compiled only when
a launch is traced, race-checked or init-checked, then kept with the module, so that untraced
launches cost nothing. The two builds share the device memory (allocations are the process's); their
`__device__` and `__constant__` variables are copied into the instrumented build before the
launch and back after it.

This module is the ctypes side of include/sim_trace_api.h; helpers/sim/microscope/trace.py makes figures
of what it returns, helpers/sim/microscope/racecheck.py words for a race, helpers/sim/microscope/initcheck.py for a
read of memory never written (the init check's shadows are helpers/sim/machine/written.py's) and
helpers/sim/microscope/bounds.py for an access out of bounds, which every launch here is checked
for.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import threading

import numpy as np

from .. import errors
from ..machine import memory, written
from ..compile import sites as site_table
from ..compile.module import Module, elf_symbols, kernel_shared_arrays
from ..settings import settings

STATS, RACE, DETAIL, BLOCKS, INIT = 1, 2, 4, 8, 16
STAT_FIELDS = ("requests", "lanes", "bytes", "sectors", "wavefronts", "ideal_wavefronts")
DETAIL_DTYPE = np.dtype([("addr", "<u8"), ("block", "<u4"), ("thread", "<u4"), ("site", "<u2"),
                         ("size", "u1"), ("flags", "u1"), ("pad", "<u4")])
WRITE, SHARED, DYNAMIC = 1, 2, 4  # Detail.flags


class Rec(ctypes.Structure):
    """sim::trace::Rec: one access, as a location remembers it."""
    _fields_ = [("block", ctypes.c_uint32), ("thread", ctypes.c_uint16), ("site", ctypes.c_uint16),
                ("epoch", ctypes.c_uint32), ("wepoch", ctypes.c_uint16), ("mask", ctypes.c_uint8),
                ("flags", ctypes.c_uint8), ("step", ctypes.c_uint16), ("fences", ctypes.c_uint16)]

    WROTE, ATOMIC_OP = 2, 4  # sim::trace::RecFlags (checked against the library when it loads)

    @property
    def wrote(self):
        return bool(self.flags & self.WROTE)

    @property
    def atomic(self):
        return bool(self.flags & self.ATOMIC_OP)


class RaceReport(ctypes.Structure):
    """sim::trace::RaceReport: the first hazard of a launch, how many there were and how many of
    them lie between warps, and racecheck's count for the first one's pair of lines (its bytes,
    include/sim_race.h says why); its space is one of SHARED, DYNAMIC_SHARED and GLOBAL."""
    SHARED, DYNAMIC_SHARED, GLOBAL = 1, 2, 3  # sim::trace's spaces (include/sim_race.h)
    _fields_ = [("count", ctypes.c_uint64), ("across_warps", ctypes.c_uint64),
                ("pair_bytes", ctypes.c_uint64), ("address", ctypes.c_uint64), ("first", Rec),
                ("second", Rec), ("space", ctypes.c_int32), ("in_step_reversed", ctypes.c_int32)]


GLOBAL = RaceReport.GLOBAL


class InitReport(ctypes.Structure):
    """sim::trace::InitReport: the first read of bytes never written, and how many there were; its
    space is RaceReport's (for shared memory, address is an offset in that space)."""
    _fields_ = [("count", ctypes.c_uint64), ("address", ctypes.c_uint64), ("block", ctypes.c_uint32),
                ("thread", ctypes.c_uint16), ("site", ctypes.c_uint16), ("size", ctypes.c_uint32),
                ("space", ctypes.c_int32)]


class BoundsReport(ctypes.Structure):
    """sim::trace::BoundsReport: the first access out of bounds (the launch ended there), and how
    many there were; its space is RaceReport's (for shared memory, address is an offset in that
    space), is_write 1 for a store or an atomic; misaligned, for an access whose address is not
    a multiple of its size (not out of bounds), the bytes it lies past one."""
    _fields_ = [("count", ctypes.c_uint64), ("address", ctypes.c_uint64), ("block", ctypes.c_uint32),
                ("thread", ctypes.c_uint16), ("site", ctypes.c_uint16), ("size", ctypes.c_uint32),
                ("space", ctypes.c_int32), ("is_write", ctypes.c_int32),
                ("misaligned", ctypes.c_uint32)]


_MIRRORS = {"Detail": DETAIL_DTYPE.itemsize, "RaceReport": ctypes.sizeof(RaceReport),
            "InitReport": ctypes.sizeof(InitReport), "BoundsReport": ctypes.sizeof(BoundsReport),
            "SiteStats": 8 * len(STAT_FIELDS),
            "Rec.WROTE": Rec.WROTE, "Rec.ATOMIC_OP": Rec.ATOMIC_OP}


def _declare(lib):
    u64p = ctypes.POINTER(ctypes.c_uint64)
    lib.sim_trace_abi_size.argtypes, lib.sim_trace_abi_size.restype = [ctypes.c_char_p], ctypes.c_int
    lib.sim_trace_set_sites.argtypes = [u64p, ctypes.POINTER(ctypes.c_uint16), ctypes.c_uint64,
                                        ctypes.c_uint32]
    lib.sim_trace_begin.argtypes = [ctypes.c_int, u64p, u64p, ctypes.c_uint32, ctypes.c_void_p,
                                    ctypes.c_void_p, ctypes.c_uint64]
    lib.sim_trace_bounds.argtypes = [u64p, u64p, u64p, u64p, ctypes.c_uint32]
    lib.sim_trace_init_unwatched.argtypes = [u64p, u64p, ctypes.c_uint32]
    lib.sim_trace_end.argtypes = [u64p, ctypes.POINTER(RaceReport), ctypes.POINTER(InitReport),
                                  ctypes.POINTER(BoundsReport)]
    lib.sim_trace_end.restype = ctypes.c_uint64
    lib.sim_trace_init_shared.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
    lib.sim_trace_init_shared.restype = ctypes.c_uint64


def _u64(array):
    return array.ctypes.data_as(ctypes.POINTER(ctypes.c_uint64))


def _user_variables(library):
    """{name: (offset, size)} of the learner's __device__/__constant__ variables in a library:
    writable variables whose names are not the runtime's (namespaced) or the C library's."""
    return {name: (value, size) for name, kind, value, size, writable in elf_symbols(library)
            if kind == 1 and writable and size and "." not in name
            and not name.startswith(("_ZN", "_ZZN", "_ZZSt", "_ZGV", "_ZT", "_ZL16sim_", "sim_",
                                     "__"))}


def _base(module):
    """The address the library was loaded at."""
    info = _DlInfo()
    address = ctypes.cast(module.lib.sim_kernel_count, ctypes.c_void_p).value
    _libdl.dladdr(ctypes.c_void_p(address), ctypes.byref(info))
    return info.dli_fbase


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


_libdl = ctypes.CDLL(None)
_one_at_a_time = threading.Lock()


class Instrumented:
    """The instrumented build of a module, loaded, with its site table."""

    def __init__(self, plain, kind):
        if plain.rebuild is None:
            raise errors.LogicError("this module was not made by SourceModule: it cannot be traced")
        path = plain.rebuild(instrument=kind)
        self.plain, self.module = plain, Module(path, source=plain.source)  # for names
        self.sites = site_table.load(path)
        lib = self.module.lib
        _declare(lib)
        for name, size in _MIRRORS.items():
            if lib.sim_trace_abi_size(name.encode()) != size:
                raise errors.LogicError(f"internal error: sim::trace::{name} and "
                                        "helpers/sim/microscope/instrumented.py are out of step")
        vaddr = np.array([s.vaddr for s in self.sites], np.uint64)
        ids = np.arange(1, len(self.sites) + 1, dtype=np.uint16)
        if lib.sim_trace_set_sites(_u64(vaddr), ids.ctypes.data_as(ctypes.POINTER(ctypes.c_uint16)),
                                   len(ids), len(ids)) != 0:
            raise errors.LogicError(f"internal error: the trace found no library for {path}")
        # per kernel: the thread-locals (its __shared__ arrays) its launches may touch
        self.shared_arrays = kernel_shared_arrays(path, self.module.kernels)
        mine, theirs = _user_variables(path), _user_variables(plain.path)
        self._variables = [(theirs[n][0], mine[n][0], mine[n][1]) for n in mine
                           if n in theirs and theirs[n][1] == mine[n][1]]

    def copy_variables(self, into_instrumented):
        """The learner's global variables, from the plain build into this one, or back."""
        if not self._variables:
            return
        plain, mine = _base(self.plain), _base(self.module)
        for plain_offset, my_offset, size in self._variables:
            src, dst = plain + plain_offset, mine + my_offset
            if not into_instrumented:
                src, dst = dst, src
            ctypes.memmove(dst, src, size)


def instrumented(module, kind="memory"):
    """The module's instrumented build ("memory", or "blocks" that also sees basic blocks),
    compiled and loaded on first use."""
    builds = module.__dict__.setdefault("_instrumented", {})
    if kind not in builds:
        builds[kind] = Instrumented(module, kind)
    return builds[kind]


@dataclasses.dataclass
class LaunchResult:
    """What one traced launch gives: per site and space (0 global, 1 shared) the counters of
    STAT_FIELDS, each access (detail, up to its cap; `recorded` is how many there were), the
    race report and the init report (None without their check, else count 0 when none was
    found), and for an init report in shared memory which bytes of that space (the __shared__
    arrays, or the dynamic arena) its block had written by the last barrier before the read
    (1 each); the bounds report when an access out of bounds ended the launch, else None."""
    kernel: str
    grid: tuple
    block: tuple
    build: Instrumented
    sites: list
    stats: np.ndarray  # (sites + 1, 2, len(STAT_FIELDS)), row 0 unused
    detail: np.ndarray | None
    recorded: int
    race: RaceReport | None
    init: InitReport | None = None
    shared_written: np.ndarray | None = None
    bounds: BoundsReport | None = None


def _shadow_pointers(ranges):
    """A C array of each allocation's init-check shadow (written.py), or None where it has none;
    and the arrays, which must stay alive for the launch."""
    arrays = written.shadows(ranges)
    pointers = (ctypes.c_void_p * max(len(ranges), 1))(
        *[None if a is None else a.ctypes.data for a in arrays])
    return pointers, arrays


def _columns(rows, n):
    """The first n columns of a list of tuples of ints, as the runtime's tables (uint64)."""
    return [np.array([row[i] for row in rows], np.uint64) for i in range(n)]


def run(record, mode, detail_cap, runner):
    """Runs one launch (a LaunchRecord) instrumented, by runner (run.launch.run); RACE, INIT and
    DETAIL run it on one worker (the accesses kept are then the first blocks', in order). An access out of bounds ends the launch: its error is the result's
    bounds report (any other failure is raised)."""
    inst = instrumented(record.module, "blocks" if mode & BLOCKS else "memory")
    lib = inst.module.lib
    ranges = memory.ranges()
    lo, sizes, pages_lo, pages_n = _columns(ranges, 4)
    shared = inst.shared_arrays[record.kernel.name]
    shared_at, shared_n = _columns(shared, 2)
    # the guard g++ gives a static of class type (__shared__ half tile[...]): not the learner's
    unwatched_at, unwatched_n = _columns([a for a in shared if a[2].startswith("_ZGV")], 2)
    detail = np.zeros(detail_cap if mode & DETAIL else 0, DETAIL_DTYPE)
    stats = np.zeros((len(inst.sites) + 1, 2, len(STAT_FIELDS)), np.uint64)
    race, init, bounds = RaceReport(), InitReport(), BoundsReport()
    shadows, _alive = _shadow_pointers(ranges) if mode & INIT else (None, None)
    one_worker = (settings.changed(workers=1) if mode & (RACE | INIT | DETAIL)
                  else contextlib.nullcontext())
    with _one_at_a_time, one_worker:  # the runtime's trace state is the library's, one launch's
        inst.copy_variables(into_instrumented=True)
        lib.sim_trace_bounds(_u64(pages_lo), _u64(pages_n), _u64(shared_at), _u64(shared_n),
                             len(shared_at))
        lib.sim_trace_init_unwatched(_u64(unwatched_at), _u64(unwatched_n), len(unwatched_at))
        lib.sim_trace_begin(mode, _u64(lo), _u64(sizes), len(lo), shadows,
                            detail.ctypes.data if len(detail) else None, len(detail))
        failure = None
        try:
            runner(record.on(inst.module))
        except errors.LaunchError as err:
            failure = err
        finally:
            recorded = lib.sim_trace_end(_u64(stats), ctypes.byref(race), ctypes.byref(init),
                                         ctypes.byref(bounds))
            inst.copy_variables(into_instrumented=False)
            shared_written = _shared_written(lib) if init.count and init.space != GLOBAL else None
    if failure is not None and not bounds.count:
        raise failure
    return LaunchResult(record.kernel.name, record.grid, record.block, inst, inst.sites, stats,
                        detail[:min(recorded, len(detail))] if mode & DETAIL else None, recorded,
                        race if mode & RACE else None, init if mode & INIT else None,
                        shared_written, bounds if bounds.count else None)


def _shared_written(lib):
    """The bytes of shared memory the block of an init report had written before the read."""
    written_bytes = np.zeros(lib.sim_trace_init_shared(None, 0), np.uint8)
    lib.sim_trace_init_shared(written_bytes.ctypes.data, len(written_bytes))
    return written_bytes
