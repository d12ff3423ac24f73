"""pycuda.scan on the course's CPU simulator: the module helpers.sim.scan itself."""
import sys

from helpers.sim import scan

sys.modules[__name__] = scan
