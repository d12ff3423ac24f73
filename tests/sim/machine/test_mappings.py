"""Many arrays: running out of the system's memory mappings is an error that says so, never a
crash of the process (the stacks of many workers, and a stack overflow: test_stacks.py); a large
array asks for huge pages."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from kernel_sources import REDUCE

ROOT = Path(__file__).resolve().parents[3]


def run_python(code, timeout=300, **env):
    env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=timeout)


def max_map_count():
    """The system's limit on a process's memory mappings (Linux's vm.max_map_count), or None."""
    try:
        return int(Path("/proc/sys/vm/max_map_count").read_text())
    except (OSError, ValueError):
        return None


MAPPINGS = max_map_count()
EXHAUSTIBLE = 1 << 20
"""Up to this vm.max_map_count (Debian's 65,530, Ubuntu 24.04's and Fedora's 1,048,576) the
tests below use the mappings up, in seconds: about half as many arrays, a page of memory each.
Some systems allow 2**31: there it would take hours and terabytes."""
uses_up_the_mappings = pytest.mark.skipif(
    MAPPINGS is None or MAPPINGS > EXHAUSTIBLE,
    reason=f"vm.max_map_count is {MAPPINGS:,}: too many mappings to use up in a test"
    if MAPPINGS else "no /proc/sys/vm/max_map_count: not Linux")


@uses_up_the_mappings
def test_tens_of_thousands_of_arrays_end_in_an_error_and_launches_still_work():
    """Each array costs at least one mapping, so the system's limit in arrays cannot all be
    placed: the simulator refuses one before, while a launch can still make its stacks."""
    proc = run_python(f"""
        import numpy as np
        from helpers.sim import driver as drv, gpuarray
        from helpers.sim.compiler import SourceModule
        f = SourceModule({REDUCE!r}).get_function("block_sum")
        x = gpuarray.to_gpu(np.ones(256 * 4, np.int32))
        out = gpuarray.zeros(4, np.int32)
        arrays = []
        try:
            while len(arrays) < {MAPPINGS}:
                arrays.append(drv.mem_alloc(16))
        except MemoryError as err:
            print("refused after", len(arrays), ":", err)
        f(x, out, block=(256, 1, 1), grid=(4, 1), shared=1024)
        f(x, out, block=(1024, 1, 1), grid=(1, 1), shared=4096)   # new stacks, too
        print("sums", out.get().tolist())
    """, CUDA_SIM_MEMORY=str(MAPPINGS * 4 * 4096))   # room for a page an array, and more
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "vm.max_map_count" in proc.stdout, proc.stdout
    assert "sums [1024, 256, 256, 256]" in proc.stdout, proc.stdout


@uses_up_the_mappings
def test_a_launch_without_mappings_left_is_an_error_not_an_abort():
    """Something else in the process has used up the mappings (every other page of a range
    twice the limit made readable: a mapping each, until the system refuses): the launch that
    needs new stacks says so and the process lives on."""
    proc = run_python(f"""
        import ctypes, mmap
        import numpy as np
        from helpers.sim import driver as drv, gpuarray
        from helpers.sim.compiler import SourceModule
        f = SourceModule({REDUCE!r}).get_function("block_sum")
        x = gpuarray.to_gpu(np.ones(1024, np.int32))   # the 1024-thread launch reads them all
        out = gpuarray.zeros(1, np.int32)
        f(x, out, block=(256, 1, 1), grid=(1, 1), shared=1024)
        libc = ctypes.CDLL(None)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                              ctypes.c_int, ctypes.c_long]
        libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        pages = 2 * {MAPPINGS} + 4096
        base = libc.mmap(None, pages * mmap.PAGESIZE, 0, mmap.MAP_PRIVATE | mmap.MAP_ANON, -1, 0)
        for i in range(0, pages, 2):   # every other page readable: one mapping each
            if libc.mprotect(base + i * mmap.PAGESIZE, mmap.PAGESIZE, mmap.PROT_READ) != 0:
                break
        for block in (256, 1024):
            try:
                f(x, out, block=(block, 1, 1), grid=(1, 1), shared=4 * block)
                print("launch ran")
            except (drv.Error, MemoryError) as err:
                print(type(err).__name__, err)
        print("alive")
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.rstrip().endswith("alive"), proc.stdout
    assert "mappings" in proc.stdout or "could not" in proc.stdout, proc.stdout


def advised_huge(address):
    """Whether the mapping that holds address asks for transparent huge pages (smaps' "hg")."""
    current = None
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()[0]
        if "-" in head and not head.endswith(":"):
            start, end = (int(x, 16) for x in head.split("-"))
            current = start <= address < end
        elif current and head == "VmFlags:":
            return "hg" in line.split()[1:]
    raise AssertionError(f"no mapping holds {address:#x}")


@pytest.mark.skipif(not Path("/sys/kernel/mm/transparent_hugepage").exists(),
                    reason="Linux with transparent huge pages")
def test_an_array_of_2_mib_or_more_asks_for_huge_pages_and_its_guard_pages_do_not():
    from helpers.sim.machine import memory

    big, small = memory.allocate(4 << 20), memory.allocate(1 << 20)
    try:
        assert advised_huge(big.address) and advised_huge(big.end - 1)
        assert not advised_huge(big.base) and not advised_huge(big.base + big.length - 1)
        assert not advised_huge(small.address)
    finally:
        memory.release(big), memory.release(small)
