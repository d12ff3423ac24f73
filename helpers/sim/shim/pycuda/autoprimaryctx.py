"""pycuda.autoprimaryctx on the course's CPU simulator: device 0's primary context, current."""
from pycuda._startup import start


def _retain_primary_context(dev):
    ctx = dev.retain_primary_context()
    ctx.push()
    return ctx


context, device = start(_retain_primary_context)
