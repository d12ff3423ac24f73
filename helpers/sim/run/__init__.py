"""Running a kernel: its arguments read and checked once, the launch, what a failure says.

- `arguments`: kernel arguments (pointers, In/Out/InOut, scalars) read into one launch record
- `launch`: launch limits, the launch itself and the search for an overrun's thread
  (`Function`, pycuda.driver.Function); `prepared`: prepared calls
- `report`: what a failed launch says, as a LaunchError with the facts; `operators`: a launch
  stopped at a conversion or a shift a GPU computes otherwise; `ubsan`: what GCC's checks hand
  the runtime (type descriptors, values); `wrapped`: an index that went below 0 as an unsigned
  int (threadIdx.x - 1 for thread 0), named as its array's element -k
- `printed`: kernel printf in the Jupyter cell that launched it
"""
