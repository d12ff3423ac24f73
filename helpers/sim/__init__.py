"""The course's CPU simulator: PyCUDA's names, running the same .cu files on the CPU.

PyCUDA's modules, for the simulator (`python -m helpers.sim script.py` or
`import helpers.sim.as_pycuda` makes them importable as `pycuda.*`, see as_pycuda.py):

- `driver`: pycuda.driver (memory, copies, events, streams, errors); the device and its
  contexts are in `device`, the exceptions in `errors`, GPU-only features in `unsupported`
- `compiler`: pycuda.compiler.SourceModule (host C++ compiler behind include/cuda_sim.h)
- `gpuarray`: pycuda.gpuarray (GPUArray; its arithmetic in `array_math`, its functions in
  `array_functions` and `array_creation`, copies in `array_copy`, vector types in `vector_types`)
- `elementwise`, `reduction`, `scan`, `cumath`, `curandom`, `characterize`, `tools` (with the
  memory pools of `mempool`): PyCUDA's modules of those names

The simulator itself:

- `settings`: the simulator's settings (CUDA_SIM_*), read from the environment once
- from source to library: `source` (the .cu text to the C++ unit compiled), `toolchain` (the
  host compiler and its flags), `compiler_messages` (its errors in the learner's terms), `cache`
  (the cache of built modules), `prebuilt` (what every module shares, built once: the grid
  runner, the trace's runtime and the precompiled prelude), `module` (the loaded library of a
  compiled module)
- `launch`: argument checks and the launch of a compiled kernel (`prepared`: prepared calls);
  `launch_report`: what a failed launch says; `stacks`: the stacks simulated threads run on;
  `streams`: streams and events; `printed`: kernel printf in the Jupyter cell that launched it
- `device`, `devices`: the simulated device(s) and their contexts; `memory`: simulated device
  memory with guard pages, charged against the device's size; `mappings`: the process's memory
  mappings against the system's limit; `hostmem`: page-locked host memory
- the microscope, on an instrumented build of a module (`trace_run`): `trace` (each warp's
  loads and stores against the memory system; its tables in `trace_report`, its pictures in
  `trace_pictures`), the race check (`racecheck`) and the init check (`initcheck`, with its
  shadow of written bytes in `written`); `sites` (where the learner's loads and stores are) and
  `places` (names for the addresses touched); `occupancy`: the CUDA occupancy calculator
- `include/`: the C++ prelude and runtime the kernels are compiled with
- `shim/`, `shim_install`, `__main__`: the `pycuda` package that `as_pycuda` puts first
"""
