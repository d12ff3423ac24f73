"""pycuda.reduction on the course's CPU simulator: the module helpers.sim.reduction itself."""
import sys

from helpers.sim import reduction

sys.modules[__name__] = reduction
