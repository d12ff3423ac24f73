"""The course's CPU simulator: PyCUDA's names, running the same .cu files on the CPU.

- `settings`: the simulator's settings (workers, race check, cache folder), read once
- `compiler`: pycuda.compiler.SourceModule; turns source text into a shared library (host C++
  compiler behind include/cuda_sim.h), cached
- `module`: a loaded library as Python sees it (kernels, globals, the runtime's structs)
- `launch`: argument checks and the launch of a compiled kernel
- `driver`: pycuda.driver (memory, copies, events, streams, errors)
- `gpuarray`: pycuda.gpuarray (to_gpu, empty, zeros, get)
- `memory`: simulated device memory with guard pages
"""
