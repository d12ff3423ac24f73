"""Loading a built module (compile/loader.py): its __device__ arrays checked against the device's
memory before the loader maps them, and a loader that cannot map them, as CUDA's out-of-memory
error naming the array."""

import pytest

from helpers.sim import driver as drv
from helpers.sim.compiler import SourceModule
from helpers.sim.settings import settings


HUGE = ("__device__ char big[1ULL << {}];\n"
        "__global__ void k(char *x) {{ x[0] = big[(size_t)threadIdx.x << 26]; }}\n")


@pytest.mark.parametrize("device_memory, words", [
    (None, r"and the simulated device has [\d,]+ of its [\d,]+ bytes free"),
    (1 << 60, r"more than this machine could map \([^/]*\)")])
def test_a_device_array_too_big_to_load_is_a_memory_error_that_names_it(device_memory, words):
    """Checked before the library is loaded, whose loader maps its zero-filled arrays: a
    __device__ array of 2^47 bytes made it fail with an OSError ("cannot map zero-fill pages"),
    a traceback, not CUDA's out-of-memory error naming the array (audit AV, a25); nor where
    CUDA_SIM_MEMORY lets it in and the machine cannot map it."""
    message = (r"^cuModuleLoadDataEx failed: out of memory: the module's __device__ array 'big' "
               r"takes 140,737,488,355,328 bytes, " + words + r".*Make it smaller, or allocate "
               r"it when the program runs")
    with settings.changed(device_memory=device_memory or settings.device_memory):
        with pytest.raises(drv.MemoryError, match=message):
            SourceModule(HUGE.format(47))
