"""pycuda.tools on the course's CPU simulator: the module helpers.sim.tools itself."""
import sys

from helpers.sim import tools

sys.modules[__name__] = tools
