"""pycuda.compiler on the course's CPU simulator: SourceModule compiles CUDA C with the host's
C++ compiler (helpers.sim.compiler). What needs a GPU compiler's output (cubin, PTX, linking,
dynamic parallelism) raises NeedsGPU."""

from helpers.sim.compiler import SourceModule  # noqa: F401
from helpers.sim.unsupported import module_getattr
from helpers.sim.unsupported import DYNAMIC_PARALLELISM, GPU_BINARIES, gpu_only

DEFAULT_NVCC_FLAGS = []

DynamicModule = gpu_only(DYNAMIC_PARALLELISM, "pycuda.compiler.DynamicModule")
DynamicSourceModule = gpu_only(DYNAMIC_PARALLELISM, "pycuda.compiler.DynamicSourceModule")
compile = gpu_only(GPU_BINARIES, "pycuda.compiler.compile")  # noqa: A001 - PyCUDA's name
compile_plain = gpu_only(GPU_BINARIES, "pycuda.compiler.compile_plain")


def get_nvcc_version(nvcc="nvcc"):
    return None


__getattr__ = module_getattr("pycuda.compiler")
