"""pycuda.sparse on the course's CPU simulator: not provided."""
from helpers.sim.unsupported import not_provided

raise ImportError(str(not_provided("pycuda", "sparse")))
