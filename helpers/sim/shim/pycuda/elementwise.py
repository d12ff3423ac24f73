"""pycuda.elementwise on the course's CPU simulator: the module helpers.sim.elementwise itself."""
import sys

from helpers.sim import elementwise

sys.modules[__name__] = elementwise
