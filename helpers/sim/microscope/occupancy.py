"""The CUDA occupancy calculator in plain Python: how many blocks of a kernel fit on one SM.

    from helpers.sim.microscope.occupancy import occupancy
    occ = occupancy(threads_per_block=256, registers_per_thread=40, shared_bytes=8192, cc="9.0")
    occ.blocks_per_sm, occ.warps_per_sm, occ.occupancy, occ.limited_by
    print(occ)

An SM keeps a block only when it has room for all of it at once: its warps (at most 64 on an
H200: 2048 threads), its registers (65,536 a SM, handed out 256 at a time per warp, in four
quarters of the SM), its shared memory (the static __shared__ arrays plus the launch's shared=,
plus 1 KiB the driver keeps per block since compute capability 8.0, rounded up to 128 bytes), and
a cap on blocks per SM. The fewest of these is the answer, as cudaOccupancyMaxActiveBlocksPerMultiprocessor
and NVIDIA's occupancy calculator give it (with the default shared-memory carveout).

The register count comes from the GPU compiler: `nvcc -Xptxas -v` prints it, PyCUDA has
`Function.num_regs`. The simulator cannot know it, so it is an argument.
"""

from __future__ import annotations

import dataclasses
import math

KIB = 1024


@dataclasses.dataclass(frozen=True)
class Device:
    """What limits occupancy on one compute capability."""
    name: str
    threads_per_sm: int
    blocks_per_sm: int
    shared_per_sm: int              # the largest shared-memory carveout
    shared_per_block_optin: int     # a kernel may ask for this much (above 48 KiB: opt-in)
    reserved_shared_per_block: int  # kept by the driver for each block
    shared_granularity: int
    registers_per_sm: int = 65536
    registers_per_block: int = 65536
    max_registers_per_thread: int = 255
    shared_per_block: int = 48 * KIB


DEVICES = {
    "7.0": Device("Volta (V100)", 2048, 32, 96 * KIB, 96 * KIB, 0, 256),
    "7.5": Device("Turing (RTX 20, T4)", 1024, 16, 64 * KIB, 64 * KIB, 0, 256),
    "8.0": Device("Ampere (A100)", 2048, 32, 164 * KIB, 163 * KIB, KIB, 128),
    "8.6": Device("Ampere (RTX 30)", 1536, 16, 100 * KIB, 99 * KIB, KIB, 128),
    "8.9": Device("Ada (RTX 40, L4)", 1536, 24, 100 * KIB, 99 * KIB, KIB, 128),
    "9.0": Device("Hopper (H100, H200)", 2048, 32, 228 * KIB, 227 * KIB, KIB, 128),
}
SUB_PARTITIONS = 4  # an SM's register file is split between its 4 schedulers
REGISTER_GRANULARITY = 256  # registers are handed out per warp, in units of 256


def _round_up(value, unit):
    return -(-value // unit) * unit


@dataclasses.dataclass
class Occupancy:
    cc: str
    threads_per_block: int
    blocks_per_sm: int
    warps_per_sm: int
    max_warps_per_sm: int
    limits: dict  # blocks per SM each resource allows

    @property
    def occupancy(self):
        """Active warps over the most an SM can hold (0 to 1)."""
        return self.warps_per_sm / self.max_warps_per_sm

    @property
    def limited_by(self):
        """The resources that set the answer: 'warps', 'blocks', 'registers', 'shared memory'."""
        return [name for name, n in self.limits.items() if n == self.blocks_per_sm]

    def __str__(self):
        parts = ", ".join(f"{name} {n if n < 10**6 else 'no limit'}" for name, n in self.limits.items())
        return (f"compute capability {self.cc} ({DEVICES[self.cc].name}), {self.threads_per_block} "
                f"threads a block: {self.blocks_per_sm} blocks an SM, {self.warps_per_sm} of "
                f"{self.max_warps_per_sm} warps, occupancy {self.occupancy:.0%}; limited by "
                f"{' and '.join(self.limited_by)} (blocks an SM allowed by each: {parts})")


def occupancy(threads_per_block, registers_per_thread, shared_bytes=0, dynamic_shared_bytes=0,
              cc="9.0"):
    """The occupancy of a kernel: `shared_bytes` of __shared__ arrays, `dynamic_shared_bytes`
    given at launch (shared=), on a GPU of compute capability `cc` ("7.0" ... "9.0")."""
    if cc not in DEVICES:
        raise ValueError(f"compute capability {cc!r} is not in the table; known: "
                         + ", ".join(DEVICES))
    dev = DEVICES[cc]
    warps = math.ceil(threads_per_block / 32)
    max_warps = dev.threads_per_sm // 32
    limits = {"warps": max_warps // warps if 0 < threads_per_block <= 1024 else 0,
              "blocks": dev.blocks_per_sm,
              "registers": _register_limit(dev, warps, registers_per_thread),
              "shared memory": _shared_limit(dev, shared_bytes + dynamic_shared_bytes)}
    blocks = min(limits.values())
    return Occupancy(cc, threads_per_block, blocks, blocks * warps, max_warps, limits)


def _register_limit(dev, warps, registers_per_thread):
    per_warp = _round_up(registers_per_thread * 32, REGISTER_GRANULARITY)
    if per_warp == 0:
        return 10**9
    if registers_per_thread > dev.max_registers_per_thread or \
            per_warp * _round_up(warps, SUB_PARTITIONS) > dev.registers_per_block:
        return 0
    warps_per_quarter = dev.registers_per_sm // SUB_PARTITIONS // per_warp
    return warps_per_quarter * SUB_PARTITIONS // warps


def _shared_limit(dev, user_bytes):
    per_block = _round_up(user_bytes + dev.reserved_shared_per_block, dev.shared_granularity)
    allowed = dev.shared_per_block_optin if user_bytes > dev.shared_per_block else dev.shared_per_block
    if per_block > allowed + dev.reserved_shared_per_block:
        return 0
    return dev.shared_per_sm // per_block if per_block else 10**9


def for_launch(function, block, shared=0, registers_per_thread=None, cc="9.0"):
    """The occupancy of launching `function` (a kernel from get_function) with this block and
    dynamic shared memory. Its __shared__ arrays are read from the function; on PyCUDA so is its
    register count (Function.num_regs), which the simulator cannot know: give it there."""
    threads = int(block[0]) * int(block[1] if len(block) > 1 else 1) * int(block[2] if len(block) > 2 else 1)
    kernel = getattr(function, "_kernel", None)  # the simulator's Function
    static = kernel.static_shared if kernel is not None else function.shared_size_bytes
    if registers_per_thread is None:
        if kernel is not None:
            raise ValueError("the simulator cannot know how many registers the GPU compiler gives "
                             "this kernel: pass registers_per_thread (nvcc -Xptxas -v prints it; "
                             "on a GPU, PyCUDA's Function.num_regs has it)")
        registers_per_thread = function.num_regs
    return occupancy(threads, registers_per_thread, static, shared, cc=cc)
