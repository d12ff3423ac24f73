"""Helpers for the CUDA course notebooks.

- `backend`: PyCUDA on a GPU, or the CPU simulator (`sim`) without one; `compile_cu` loads kernels
  from cuda_src/
- `timing`: kernel timings with CUDA events
- `exercises`: the checkers for each notebook's exercises, `status()` and `reset()`
- `workload`: the class-size setting that shrinks the notebooks' sizes, and what they used
- `doctor`: `python -m helpers.doctor` explains what the machine has and what is missing
"""
