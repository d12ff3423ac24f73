"""pycuda.curandom on the course's CPU simulator: the module helpers.sim.curandom itself."""
import sys

from helpers.sim import curandom

sys.modules[__name__] = curandom
