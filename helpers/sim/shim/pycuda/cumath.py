"""pycuda.cumath on the course's CPU simulator: the module helpers.sim.cumath itself."""
import sys

from helpers.sim import cumath

sys.modules[__name__] = cumath
