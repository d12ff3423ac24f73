"""tools/fuzz_gpu.py: random kernels give, on the simulator, the words an H200 gave, launch for
launch (bench/data/h200_fuzz_outputs.npz, stored by the tool's --store on the GPU): the modules
of tests/tools/test_fuzz_loops.py, less their kernels with one of the two errors and the launches
with a race, whose outcome on a GPU is undefined or depends on the order its warps ran in."""

import sys

import pytest

from kernel_sources import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import fuzz_gpu  # noqa: E402
from random_kernels import kernel_text  # noqa: E402

MODULES = list(fuzz_gpu.modules())


def test_the_stored_modules_are_those_the_loops_test_runs():
    import test_fuzz_loops

    assert (fuzz_gpu.SEEDS, fuzz_gpu.KERNELS) == (test_fuzz_loops.SEEDS, test_fuzz_loops.KERNELS)
    assert fuzz_gpu.PLAIN_SEEDS == range(4)  # test_fuzz_loops' plain seeds
    for tag, names, source in MODULES:
        assert "(unsigned long)(n * 16u)" not in "".join(kernel_text(source, n) for n in names), tag


@pytest.fixture(scope="module")
def stored():
    assert fuzz_gpu.DATA.exists(), (f"no GPU outputs stored: store them on a GPU "
                                    f"({fuzz_gpu.STORE_COMMAND})")
    return fuzz_gpu.load()


@pytest.mark.parametrize("tag, names, source", MODULES, ids=[m[0] for m in MODULES])
def test_the_simulator_gives_the_gpus_words(stored, tag, names, source):
    compared, problem = fuzz_gpu.compare_module(*stored, tag, names, source)
    assert problem is None, problem
    assert compared, f"{tag}: every launch had a race or none was stored"
