"""`pycuda.curandom`, for the CPU simulator.

`rand(shape, dtype)` fills a new GPUArray with uniform random numbers in [0, 1) (random 32-bit
integers for int32/uint32), from a generated kernel as in PyCUDA. PyCUDA's kernel hashes each
index with MD5; this one with SplitMix64, so the numbers differ from a GPU's, but not their
distribution. Like PyCUDA's, it draws its seed from numpy.random.

The generator classes (XORWOWRandomNumberGenerator, Sobol32RandomNumberGenerator, ...) wrap
NVIDIA's cuRAND library, which needs a GPU: they raise NeedsGPU. get_curand_version() returns
None, as PyCUDA's does where cuRAND is missing.
"""

import numpy as np

from .elementwise import get_elwise_kernel
from .unsupported import module_getattr
from .gpuarray import GPUArray
from .tools import context_dependent_memoize
from .unsupported import CURAND, gpu_only

_HASH = """
unsigned long long z = seed + (unsigned long long) i * 0x9E3779B97F4A7C15ULL;
z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
z = z ^ (z >> 31);
"""

_STORE = {
    "float": "dest[i] = (z >> 40) * (1.0f / 16777216.0f);",
    "double": "dest[i] = (z >> 11) * (1.0 / 9007199254740992.0);",
    "unsigned int": "dest[i] = (unsigned int) (z >> 32);",
}


@context_dependent_memoize
def _rand_kernel(c_type):
    return get_elwise_kernel(f"{c_type} *dest, unsigned long seed", _HASH + _STORE[c_type],
                             "splitmix_rng")


def rand(shape, dtype=np.float32, stream=None):
    """Uniform random numbers in [0, 1) (float32, float64), or random 32-bit integers."""
    dtype = np.dtype(dtype)
    c_type = {np.dtype(np.float32): "float", np.dtype(np.float64): "double",
              np.dtype(np.int32): "unsigned int", np.dtype(np.uint32): "unsigned int"}.get(dtype)
    if c_type is None:
        raise NotImplementedError(f"curandom.rand makes float32, float64, int32 or uint32 "
                                  f"arrays, not {dtype}")
    result = GPUArray(shape, dtype)
    if result.size:
        seed = np.random.randint(2**31 - 1)
        _rand_kernel(c_type).prepared_async_call(result._grid, result._block, stream,
                                                 result.gpudata, seed, result.size)
    return result


def get_curand_version():
    return None


for _name in ["XORWOWRandomNumberGenerator", "MRG32k3aRandomNumberGenerator",
              "Sobol32RandomNumberGenerator", "ScrambledSobol32RandomNumberGenerator",
              "Sobol64RandomNumberGenerator", "ScrambledSobol64RandomNumberGenerator",
              "seed_getter_uniform", "seed_getter_unique", "generate_direction_vectors",
              "generate_scramble_constants32", "generate_scramble_constants64"]:
    globals()[_name] = gpu_only(CURAND, f"pycuda.curandom.{_name}")

__getattr__ = module_getattr("pycuda.curandom")
