"""pycuda.characterize on the course's CPU simulator: the module helpers.sim.characterize itself."""
import sys

from helpers.sim import characterize

sys.modules[__name__] = characterize
