"""The device's address space (helpers/sim/machine/arena.py): a write far off every array faults
and is reported against the nearest one, instead of landing in the process's own memory; arrays
cost two mappings each and give them back when freed; where the address space is limited, a
smaller arena is reserved."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from helpers.sim import driver as drv
from helpers.sim.machine import arena
from helpers.sim.machine.mappings import PAGE

ROOT = Path(__file__).resolve().parents[3]
POKE = "__global__ void poke(char *a, long long offset) { a[offset] = 1; }"


def run_python(code, limit_address_space=None):
    """code in a fresh Python, whose arrays are the only ones placed (its output, or the test
    fails with its error)."""
    def limit():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (limit_address_space,) * 2)

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("CUDA_SIM_MEMORY", None)
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=300,
                          preexec_fn=limit if limit_address_space else None)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_a_write_far_off_every_array_faults_and_no_memory_of_the_host_changes():
    """Host arrays (NumPy's, mapped by malloc) made between the device's: written a megabyte
    before the first device array, such a write landed in OpenBLAS's data; now every distance up
    to 64 GiB either side faults, named after the nearest array."""
    out = run_python(f"""
        import numpy as np
        from helpers.sim import driver as drv
        from helpers.sim.compiler import SourceModule
        poke = SourceModule({POKE!r}).get_function("poke")
        host, device = [], []
        for _ in range(4):
            host.append(np.zeros(1 << 18, np.float32))
            device.append(drv.mem_alloc(4000))
        first, last = int(device[0]), int(device[-1])
        for offset in [-(1 << 36), -(1 << 30), -(1 << 20), -(3 << 12), 1 << 20, 1 << 30, 1 << 36]:
            try:
                poke(device[0], np.int64(offset), block=(1, 1, 1))
                print(offset, "no fault")
            except drv.LaunchError as err:
                nearest = first if offset < 0 else last
                print(offset, err.kind, err.allocation == (nearest, 4000),
                      err.offset == first + offset - nearest)
        print("host", sum(int(h.any()) for h in host))
    """)
    lines = out.splitlines()
    assert lines[-1] == "host 0", out
    assert lines[:-1] == [f"{offset} out of bounds True True" for offset in
                          [-(1 << 36), -(1 << 30), -(1 << 20), -(3 << 12), 1 << 20, 1 << 30,
                           1 << 36]], out


def count_mappings():
    return Path("/proc/self/maps").read_text().count("\n")


def test_an_array_costs_two_mappings_and_gives_them_back_when_freed():
    drv.mem_alloc(1).free()  # the arena is reserved
    before = count_mappings()
    arrays = [drv.mem_alloc(4000) for _ in range(100)]
    assert all(arena.holds(int(a)) for a in arrays)
    assert count_mappings() - before <= 2 * 100
    for a in arrays:
        a.free()
    assert count_mappings() <= before


def test_ranges_are_taken_from_the_top_then_the_lowest_that_fits_and_merged_when_given_back():
    """_Arena's bookkeeping alone (no pages): a range of the margins is never handed out."""
    start, size = 1 << 40, 1 << 30
    a = arena._Arena(start, size)
    low, high = start + size // 8, start + size - size // 8
    assert a.free == [(low, high)]
    one = a.take(3 * PAGE, PAGE)
    two = a.take(3 * PAGE, PAGE)
    assert (one, two) == (low, low + 3 * PAGE)
    huge = a.take(PAGE + (2 << 20), 2 << 20)           # its data starts on a 2 MiB boundary
    assert (huge + PAGE) % (2 << 20) == 0 and huge >= two + 3 * PAGE
    a.give(one, 3 * PAGE)
    assert a.take(2 * PAGE, PAGE) == huge + PAGE + (2 << 20)  # above the last one placed
    rest = a.free[-1]
    assert a.take(rest[1] - rest[0] - PAGE, PAGE) == rest[0]   # a page left at the top,
    assert a.take(2 * PAGE, PAGE) == one                # so the lowest free range that fits
    for base, length in [(one, 2 * PAGE), (two, 3 * PAGE), (huge, PAGE + (2 << 20)),
                         (huge + PAGE + (2 << 20), 2 * PAGE), (rest[0], rest[1] - rest[0] - PAGE)]:
        a.give(base, length)
    assert a.free == [(low, high)]                      # merged back into one
    assert a.take(high - low + PAGE, PAGE) is None      # more than there is


def test_under_a_limit_on_the_address_space_a_smaller_arena_still_catches_far_writes():
    """`ulimit -v` of 16 GiB (some shared servers set one): 1 TiB of addresses cannot be
    reserved, so half as much is asked for, again and again, until it fits."""
    out = run_python(f"""
        import numpy as np
        from helpers.sim import driver as drv
        from helpers.sim.compiler import SourceModule
        from helpers.sim.machine import arena
        poke = SourceModule({POKE!r}).get_function("poke")
        a = drv.mem_alloc(4000)
        size = arena._arena.end - arena._arena.start
        print(size < arena.SIZE, size >= 2 * (4 << 30) // 4)
        try:
            poke(a, np.int64(1 << 20), block=(1, 1, 1))
        except drv.LaunchError as err:
            print(err.kind, err.allocation == (int(a), 4000))
    """, limit_address_space=16 << 30)
    assert out.split() == ["True", "True", "out", "of", "bounds", "True"], out


def test_a_freed_array_s_range_is_not_placed_again_at_once():
    a = drv.mem_alloc(4000)
    address = int(a)
    a.free()
    again = [drv.mem_alloc(4000) for _ in range(8)]
    assert address not in [int(b) for b in again]
    assert np.all([arena.holds(int(b)) for b in again])
