"""Helpers for the CUDA course notebooks: the course-wide modules here, one folder a chapter for
what serves a single chapter.

- `backend`: PyCUDA on a GPU, or the CPU simulator (`sim`) without one; `compile_cu` loads kernels
  from cuda_src/
- `settings`: the course's own settings (CUDA_COURSE_*), read from the environment in one place
- `course`: where the learner's copy of the course (cuda_src/, notebooks/) is, wherever the
  package is installed
- `timing`: kernel timings with CUDA events
- `exercises`: the checkers for each notebook's exercises, `status()` and `reset()`
- `workload`: the class-size setting that shrinks the notebooks' sizes, and what they used
- `reference`: figures measured on an H200 (`data/h200_reference.json`), shown beside the
  simulator's where it cannot show them
- `ptxas`: registers and spills, asked of the GPU compiler without a GPU (notebooks 08 and 14)
- `plain_warnings`: what a compiler said, printed as text rather than as a Python warning
- `doctor`: `python -m helpers.doctor` explains what the machine has and what is missing
- `ch09/`: `bug_gallery` (eight kernels with a learner's mistake each, and how each is launched),
  `sticky_errors` (what an error inside a kernel does to the rest of the program), `gpu_tools`
  (compute-sanitizer and Nsight Compute run from a notebook)
- `ch10/`: `depth_camera` (the scene and a NumPy renderer), `point_cloud` (NumPy references of
  the chapter's kernels)
- `ch11/`: `multigpu` (a context a device), `torch_parallel` (PyTorch's DataParallel and DDP on
  the same split)
- `ch12/`: `opencl` (the OpenCL platform, NVIDIA's or Oclgrind's, .cl files and event timing),
  `oclgrind` (Oclgrind's checks, out-of-bounds accesses and data races, captured from Python)
- `sim/`: the CPU simulator: PyCUDA's faces on top, the engine below in rooms by concern
  (`sim/__init__.py` lists them), and `include/` (the C++ prelude and runtime)
"""
