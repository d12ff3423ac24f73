"""The simulator as a microscope: what each warp's loads and stores ask of the memory system.

    from helpers.sim.microscope.trace import trace
    with trace() as t:
        kernel(rgb, gray, ..., block=(32, 8, 1), grid=(32, 128))
    print(t.summary())                 # per kernel, the counters Nsight Compute reports
    print(t.lines("rgb_to_gray"))      # the same per source line
    t["rgb_to_gray"].global_ld.sectors_per_request

A GPU serves a warp's memory instruction as one *request*: for global memory it fetches the
distinct 32-byte *sectors* the 32 lanes touch (4 when 32 lanes read 32 consecutive floats, 32
when each lane's float is in a different sector); for shared memory, 32 banks of 4 bytes serve
one word each per *wavefront*, so lanes that hit different words of one bank cost extra
wavefronts (*bank conflicts*). The simulator sees every access of every thread, so it can count
exactly that, as Nsight Compute does on a GPU: the k-th execution of a load or store by each lane
of a warp is one request. It also counts lane efficiency (the active lanes of each warp-level
execution of a basic block, out of 32, with `trace(divergence=True)`; else of each memory
request), which divergent branches lower.

A traced launch runs on the module's instrumented build (instrumented.py); without `trace()` nothing
changes and nothing is paid. The race check (settings.racecheck) and the init check
(settings.initcheck) run on the same build, and every launch there is checked for accesses out of
bounds, exactly (bounds.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os

from . import bounds, initcheck, instrumented, racecheck
from ..machine import written
from .places import Places
from ..settings import settings

_active = []  # the Trace objects of the `with trace()` blocks now open
NCU_METRICS = {  # Nsight Compute's names for the figures of KernelStats.metrics()
    "global_ld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "global_ld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "global_st_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "global_st_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "shared_ld_requests": "smsp__sass_inst_executed_op_shared_ld.sum",
    "shared_st_requests": "smsp__sass_inst_executed_op_shared_st.sum",
    "shared_ld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shared_st_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "shared_ld_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "shared_st_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
}


class Report(str):
    """Text that shows as itself at the end of a notebook cell."""

    def __repr__(self):
        return str(self)


@dataclasses.dataclass
class Counts:
    """Requests of one kind (say, global loads) and what they cost."""
    requests: int = 0
    lanes: int = 0  # active lanes, summed over requests (= executions by single threads)
    bytes: int = 0  # bytes the lanes asked for
    sectors: int = 0  # global memory: 32-byte sectors fetched
    wavefronts: int = 0  # shared memory: passes through the 32 banks
    ideal_wavefronts: int = 0

    def add(self, values):
        """Adds a row of the runtime's counters (instrumented.STAT_FIELDS), or another Counts."""
        if isinstance(values, Counts):
            values = [getattr(values, name) for name in instrumented.STAT_FIELDS]
        for name, value in zip(instrumented.STAT_FIELDS, values):
            setattr(self, name, getattr(self, name) + int(value))

    @property
    def sectors_per_request(self):
        return self.sectors / self.requests if self.requests else 0.0

    @property
    def bank_conflicts(self):
        return self.wavefronts - self.ideal_wavefronts

    @property
    def lane_efficiency(self):
        return self.lanes / (32 * self.requests) if self.requests else 1.0


_MEMORY_KINDS = ("global_ld", "global_st", "shared_ld", "shared_st", "atomics", "shared_atomics")
_KINDS = (*_MEMORY_KINDS, "blocks")


def _kind(site, space):
    if site.kind == "block":
        return "blocks"
    if site.kind == "atomic":
        return ("atomics", "shared_atomics")[space]
    return ("global", "shared")[space] + ("_ld" if site.kind == "load" else "_st")


@dataclasses.dataclass
class KernelStats:
    """The counters of one kernel, over one or more launches (or of one source line)."""
    name: str
    launches: int = 0
    global_ld: Counts = dataclasses.field(default_factory=Counts)
    global_st: Counts = dataclasses.field(default_factory=Counts)
    shared_ld: Counts = dataclasses.field(default_factory=Counts)
    shared_st: Counts = dataclasses.field(default_factory=Counts)
    atomics: Counts = dataclasses.field(default_factory=Counts)  # atomicAdd and friends, global
    shared_atomics: Counts = dataclasses.field(default_factory=Counts)  # ... on shared memory
    blocks: Counts = dataclasses.field(default_factory=Counts)  # basic blocks: lane efficiency

    @property
    def lane_efficiency(self):
        """Active lanes per warp-level step, out of 32: over basic blocks when they were traced
        (trace(divergence=True)), else over the memory requests."""
        if self.blocks.requests:
            return self.blocks.lane_efficiency
        kinds = [getattr(self, k) for k in _MEMORY_KINDS]
        requests = sum(c.requests for c in kinds)
        return sum(c.lanes for c in kinds) / (32 * requests) if requests else 1.0

    def add(self, sites, stats):
        """Adds a launch's counters: stats[site number, space] for each site."""
        for number, site in enumerate(sites, start=1):
            self.add_site(site, stats[number])

    def add_site(self, site, rows):
        for space in (0, 1):
            if rows[space, 0]:
                getattr(self, _kind(site, space)).add(rows[space])

    def merge(self, other):
        for kind in _KINDS:
            getattr(self, kind).add(getattr(other, kind))

    def metrics(self):
        """{Nsight Compute metric name: value} for the figures it also measures."""
        values = {"global_ld_requests": self.global_ld.requests,
                  "global_ld_sectors": self.global_ld.sectors,
                  "global_st_requests": self.global_st.requests,
                  "global_st_sectors": self.global_st.sectors,
                  "shared_ld_requests": self.shared_ld.requests,
                  "shared_st_requests": self.shared_st.requests,
                  "shared_ld_wavefronts": self.shared_ld.wavefronts,
                  "shared_st_wavefronts": self.shared_st.wavefronts,
                  "shared_ld_bank_conflicts": self.shared_ld.bank_conflicts,
                  "shared_st_bank_conflicts": self.shared_st.bank_conflicts}
        return {NCU_METRICS[k]: v for k, v in values.items()}


class KernelTrace:
    """One traced launch: its counters, and (up to the trace's limit) every access."""

    def __init__(self, result, places):
        self.name, self.grid, self.block = result.kernel, result.grid, result.block
        self.sites, self.places = result.sites, places
        self.stats = KernelStats(self.name, 1)
        self.stats.add(result.sites, result.stats)
        self._raw, self._detail, self.recorded = result.stats, result.detail, result.recorded

    def lines(self):
        """{(file, line): KernelStats} for each source line that ran."""
        per_line = {}
        for number, site in enumerate(self.sites, start=1):
            if self._raw[number, :, 0].any():
                key = (site.file, site.line)
                per_line.setdefault(key, KernelStats(f"{os.path.basename(site.file)}:{site.line}"))
                per_line[key].add_site(site, self._raw[number])
        return per_line

    def accesses(self):
        """Every access kept: a NumPy record array with block and thread (linear indices),
        warp, lane, line, write, shared, array (its name), index (element), offset (bytes from
        the array's start) and bytes (the access's size)."""
        from .pictures import access_table
        return access_table(self)


class Trace:
    """What the launches inside one `with trace()` block did."""

    def __init__(self, accesses, divergence=False):
        self.accesses_per_launch, self.divergence = accesses, divergence
        self.launches: list[KernelTrace] = []

    def __getitem__(self, kernel):
        """The counters of a kernel, added over its launches."""
        stats = KernelStats(kernel)
        for launch in self.launches:
            if launch.name == kernel:
                stats.launches += 1
                stats.add(launch.sites, launch._raw)
        if not stats.launches:
            known = ", ".join(sorted({k.name for k in self.launches})) or "none"
            raise KeyError(f"no launch of kernel {kernel!r} was traced (traced: {known})")
        return stats

    def kernels(self):
        return list(dict.fromkeys(k.name for k in self.launches))

    def summary(self):
        """Per kernel: global requests and sectors, shared wavefronts and bank conflicts, lane
        efficiency, as Nsight Compute's Memory Workload Analysis reports them."""
        from .tables import kernel_table
        return Report("\n\n".join(kernel_table(self[k]) for k in self.kernels()))

    def lines(self, kernel=None):
        """The same figures per source line (of one kernel, or of every kernel traced)."""
        from .tables import line_table
        return Report("\n\n".join(line_table(k, self._lines(k))
                                  for k in ([kernel] if kernel else self.kernels())))

    def _lines(self, kernel):
        merged = {}
        for launch in self.launches:
            if launch.name != kernel:
                continue
            for key, stats in launch.lines().items():
                merged.setdefault(key, KernelStats(stats.name)).merge(stats)
        return merged


@contextlib.contextmanager
def trace(accesses=65536, divergence=False):
    """Trace the launches in the `with` block. `accesses`: how many single accesses to keep per
    launch for pictures and `accesses()` (the counters always cover every access).
    `divergence`: also count the active lanes of every basic block (lane efficiency), on a build
    that is instrumented there too; without it, lane efficiency counts memory requests only."""
    t = Trace(int(accesses), divergence)
    _active.append(t)
    try:
        yield t
    finally:
        _active.remove(t)


def plan():
    """What a launch made now must do, even when a stream runs it later: None (run it plainly),
    or (the open trace or None, whether to check for races, whether to check for reads of
    memory never written)."""
    if not _active and not settings.racecheck and not settings.initcheck:
        return None
    return (_active[-1] if _active else None), settings.racecheck, settings.initcheck


def launch(plan, record, run):
    """Runs one launch (a run.arguments.LaunchRecord) for a plan() on its module's instrumented
    build; run: the runner of a record (run.launch.run), which afterwards checks the allocations
    the record's arguments point into for overruns. An access out of bounds, which ended the
    launch, is raised first; then a race; then a read of memory never written."""
    tracer, races, inits = plan
    mode = (instrumented.STATS if tracer else 0) | (
        instrumented.DETAIL if tracer and tracer.accesses_per_launch else 0) | (
        instrumented.BLOCKS if tracer and tracer.divergence else 0) | (
        instrumented.RACE if races else 0) | (instrumented.INIT if inits else 0)
    if not inits:
        written.forget_all()  # this launch's stores are not marked: see written.py
    cap = tracer.accesses_per_launch if tracer else 0
    result = instrumented.run(record, mode, cap, run)
    places = Places(result.build.module.path, record)
    if result.bounds is not None:
        raise bounds.error(result, record.kernel, places)
    if tracer:
        tracer.launches.append(KernelTrace(result, places))
    if result.race is not None and result.race.count:
        raise racecheck.error(result, record.kernel, places)
    if result.init is not None and result.init.count:
        raise initcheck.error(result, record.kernel, places)
