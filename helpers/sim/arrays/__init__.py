"""Arrays in simulated device memory: `pycuda.gpuarray`'s engine.

- `array`: the GPUArray class, its flags and strides; `arithmetic`: its operators, with PyCUDA's
  rules; `functions`: the functions that take GPUArrays; `creation`: those that make them
- `copying`: copies between GPUArrays and NumPy arrays; `vector_types`: float3, int2, ...
"""
