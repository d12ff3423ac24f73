"""pycuda.gpuarray on the course's CPU simulator: the module helpers.sim.gpuarray itself."""
import sys

from helpers.sim import gpuarray

sys.modules[__name__] = gpuarray
