"""What device code may use depends on the GPU's compute capability: the simulator compiles a
source as nvcc does for the device's own (PyCUDA's default ``-arch=sm_XY``), the capability in
settings.compute_capability (CUDA_SIM_COMPUTE_CAPABILITY).

- ``__CUDA_ARCH__`` is XY0 (750 for a T4), so that ``#if __CUDA_ARCH__ >= 800`` takes the branch
  the GPU would take;
- a function the device does not have is not declared (nvcc: 'identifier "__reduce_add_sync" is
  undefined'), so calling it is a compile error, which names the function, the capability it
  needs and the device's (``NeedsNewerGPUError``, made by messages.py);
- a warp matrix fragment the device does not have (``wmma::fragment`` of ``__nv_bfloat16`` or
  ``precision::tf32`` below 8.0, of 8-bit integers below 7.2: CUDA's mma.h declares none) is the
  same error, from include/mma.h, which reads ``__CUDA_ARCH__``.

Both are lines after the prelude (``#define __CUDA_ARCH__ 750``, ``#undef __reduce_add_sync``),
given only to a source that names ``__CUDA_ARCH__``, ``wmma`` or such a function: every other
source builds the same module at every capability, and a learner's compile cache keeps one copy
of it. What needs more than 7.0, the oldest capability the simulator's limits know
(machine/device.py): NEEDS, and mma.h's fragments. The rest of CUDA's functions that the simulator runs exist from 7.0 on (or are emulated by
CUDA's headers on older GPUs, as the DPX functions are before 9.0).
"""

import re

NEEDS = {name: (8, 0) for name in (
    "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync",
    "__reduce_or_sync", "__reduce_xor_sync")}
"""{function: the compute capability from which a GPU has it}"""
_NAMES = re.compile(r"\b(__CUDA_ARCH__|wmma|" + "|".join(NEEDS) + r")\b")


def arch(cc: tuple[int, int]) -> int:
    """__CUDA_ARCH__ for compute capability cc: 750 for (7, 5)."""
    return cc[0] * 100 + cc[1] * 10


def macros(source: str, cc: tuple[int, int]) -> list[str]:
    """The -D/-U options that make ``source`` compile for compute capability ``cc``: none for
    a source that names neither __CUDA_ARCH__, wmma nor a function of NEEDS."""
    named = set(_NAMES.findall(source))
    if not named:
        return []
    return [f"-D__CUDA_ARCH__={arch(cc)}",
            *(f"-U{name}" for name in sorted(named & NEEDS.keys()) if cc < NEEDS[name])]
