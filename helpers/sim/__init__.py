"""The course's CPU simulator: PyCUDA's names, running the same .cu files on the CPU.

PyCUDA's faces, which notebooks and PyCUDA code import (`python -m helpers.sim script.py` or
`import helpers.sim.as_pycuda` makes them importable as `pycuda.*`, see as_pycuda.py):
`driver`, `compiler` (SourceModule), `gpuarray`, `elementwise`, `reduction`, `scan`, `cumath`,
`curandom`, `characterize`, `tools`. They hold PyCUDA's names and import the engine; nothing in
the engine imports them.

The engine, in rooms from the ground up (each imports only its own room and those before it;
tests/test_imports.py holds the rule):

- the ground floor: `errors` (PyCUDA's exceptions, with the facts behind each message),
  `distances` (where an access fell, in memcheck's words), `settings` (CUDA_SIM_*, read from the environment once), `unsupported` (what needs a GPU),
  `c_types` (C type names and NumPy dtypes)
- `machine/`: the simulated devices and contexts, device memory with guard pages, allocations,
  copies, host memory, memory pools, streams and events, the threads' stacks
- `compile/`: from .cu text to a loaded library: the translation unit, the host toolchain, the
  build and its cache, what every module shares prebuilt, the compiler's messages in the
  learner's terms, the device-call allow-list, the site table, the loaded module
- `microscope/`: a launch on its module's instrumented build: the memory trace, its tables and
  pictures, the race check, the init check, names for the places touched, the occupancy
  calculator
- `run/`: a launch: its arguments read and checked once into a launch record, launch limits, the
  run and the search for an overrun's thread, the error report, prepared calls, kernel printf
- `arrays/`: the GPUArray class, its layout, arithmetic and functions

`include/` holds the C++ prelude and runtime the kernels are compiled with; `shim/`,
`shim_install` and `__main__` the `pycuda` package that `as_pycuda` puts first.
"""
