"""pycuda.sparse on the course's CPU simulator: not provided."""
from helpers.sim.errors import not_provided

raise ImportError(str(not_provided("pycuda", "sparse")))
