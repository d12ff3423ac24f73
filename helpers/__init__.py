"""Helpers for the CUDA course notebooks.

- `backend`: PyCUDA on a GPU, or the CPU simulator (`sim`) without one; `compile_cu` loads kernels
  from cuda_src/
- `timing`: kernel timings with CUDA events
- `opencl`: notebook 12's OpenCL platform (NVIDIA's or Oclgrind), .cl files and event timing;
  `oclgrind`: Oclgrind's checks (out-of-bounds accesses, data races) captured from Python
- `exercises`: the checkers for each notebook's exercises, `status()` and `reset()`
- `workload`: the class-size setting that shrinks the notebooks' sizes, and what they used
- `doctor`: `python -m helpers.doctor` explains what the machine has and what is missing
"""
