"""What pycuda.autoinit and pycuda.autoprimaryctx share: make the default context current, and
let it go when the program ends."""
import atexit

import pycuda.driver as cuda
from pycuda.tools import clear_context_caches, make_default_context


def start(ctx_maker=None):
    cuda.init()
    context = make_default_context(ctx_maker)

    def finish_up():
        context.pop()
        clear_context_caches()

    atexit.register(finish_up)
    return context, context.get_device()
