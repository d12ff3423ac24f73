"""Helpers for the CUDA course notebooks.

- `backend`: PyCUDA on a GPU, or the CPU simulator (`sim`) without one; `compile_cu` loads kernels
  from cuda_src/
- `timing`: kernel timings with CUDA events
- `opencl`: notebook 12's OpenCL platform (NVIDIA's or Oclgrind), .cl files and event timing;
  `oclgrind`: Oclgrind's checks (out-of-bounds accesses, data races) captured from Python
- `exercises`: the checkers for each notebook's exercises, `status()` and `reset()`
- `workload`: the class-size setting that shrinks the notebooks' sizes, and what they used
- `reference`: figures measured on an H200 (`data/h200_reference.json`), shown beside the
  simulator's where it cannot show them
- notebook 10's `depth_camera` (the scene and a NumPy renderer) and `point_cloud` (NumPy
  references of its kernels); notebook 11's `multigpu` (a context a device) and
  `torch_parallel` (PyTorch's DataParallel and DDP on the same split)
- notebook 09's `bug_gallery` (eight kernels with a learner's mistake each, and how each is
  launched), `sticky_errors` (what an error inside a kernel does to the rest of the program),
  `gpu_tools` (compute-sanitizer and Nsight Compute run from a notebook) and `ptxas` (registers
  and spills, asked of the GPU compiler without a GPU)
- `doctor`: `python -m helpers.doctor` explains what the machine has and what is missing
- `sim`: the CPU simulator, one room per concern; its `__init__` lists them: PyCUDA's modules
  (`driver`, `compiler`, `gpuarray`, ...), and the simulator itself: `settings` (read from the
  environment once), the way from source text to a loaded library (`source`, `toolchain`,
  `compiler`, `compiler_messages`, `cache`, `prebuilt`, `module`), running it (`launch`, `launch_report`,
  `prepared`, `stacks`, `streams`, `printed`), the device and its memory (`device`,
  `devices`, `memory`, `mappings`, `hostmem`), and `include/` (the C++ prelude and runtime the
  kernels are compiled with)
"""
