"""The simulated machine: devices, their contexts, memory and streams.

- `device`: one simulated device, its attributes, limits and contexts; `devices`: several, which
  one each thread works on and what belongs to which
- `memory`: device memory with guard pages; `arena`: the device's address space, where every
  array is placed (huge pages for large ones); `budget`: the device's size, and what is charged
  against it (allocations, modules' __device__ arrays); `mappings`: the process's mappings,
  counted against the system's limit; `written`: which bytes have been written (the init
  check's shadow); `table_lock`: the tables of what is allocated, by start address, and their
  lock, under which a garbage collection's frees wait for the lookup they interrupted
- `allocations`: `mem_alloc`, managed memory and the pointers kernels receive; `copies`: memcpy
  and memset;
  `pitched`: mem_alloc_pitch, Memcpy2D and Memcpy3D, 2-D and queued fills
- `hostmem`: page-locked, registered and aligned host memory; `mempool`: PyCUDA's memory pools
- `streams`: streams and events; `stacks`: the stacks simulated threads run on
"""
