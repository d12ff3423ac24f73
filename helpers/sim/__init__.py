"""The course's CPU simulator: PyCUDA's names, running the same .cu files on the CPU.

- `driver`: pycuda.driver (memory, copies, events, streams, errors)
- `compiler`: pycuda.compiler.SourceModule (host C++ compiler behind include/cuda_sim.h)
- `gpuarray`: pycuda.gpuarray (to_gpu, empty, zeros, get)
- `launch`: argument checks and the launch of a compiled kernel
- `memory`: simulated device memory with guard pages
"""
