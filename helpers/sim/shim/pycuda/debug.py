"""pycuda.debug on the course's CPU simulator: `python -m pycuda.debug script.py` runs script.py.
(A GPU build would pass -g to nvcc for cuda-gdb; the simulator's kernels are C++ already.)"""
import runpy
import sys

if len(sys.argv) < 2:
    sys.exit("usage: python -m pycuda.debug SCRIPT-TO-RUN [SCRIPT-ARGUMENTS]")
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
