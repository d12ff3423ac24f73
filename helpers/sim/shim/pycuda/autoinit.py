"""pycuda.autoinit on the course's CPU simulator: a context on the (simulated) device 0."""
from pycuda._startup import start

context, device = start()
