"""Helpers for the CUDA course notebooks.

- `backend`: PyCUDA on a GPU, or the CPU simulator (`sim`) without one; `compile_cu` loads kernels
  from cuda_src/
- `timing`: kernel timings with CUDA events
- `exercises`: the checkers for each notebook's exercises
- `doctor`: `python -m helpers.doctor` explains what the machine has and what is missing
- `sim`: the CPU simulator, one room per concern (its `__init__` lists them): `settings` (read
  from the environment once), `compiler` (source text to a shared library, cached), `module` (the
  loaded library as Python sees it), `launch` (argument checks and running a grid), `driver`,
  `gpuarray` (PyCUDA's names), `memory` (device memory behind guard pages), and `include/` (the
  C++ prelude and runtime the kernels are compiled with)
"""
