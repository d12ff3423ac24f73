"""pycuda.gl on the course's CPU simulator: OpenGL interoperability needs a GPU."""
from helpers.sim.unsupported import NeedsGPU
from helpers.sim.unsupported import OPENGL

raise ImportError(str(NeedsGPU(OPENGL, "pycuda.gl")))
