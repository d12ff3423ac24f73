"""Several GPUs from one Python process (notebook 11): a context for each device, and a way to
make one current for a while.

    from helpers.ch11.multigpu import device_contexts, using
    contexts = device_contexts()          # one per device: its primary context
    with using(contexts[1]):
        x = gpuarray.to_gpu(a)            # memory on device 1, kernels launched on device 1

A CUDA context is current per host thread. ``using`` pushes one for the ``with`` block and pops
it after, even when the block raises, so that the context that was current before (the
notebooks' device 0) is current again.
"""

from __future__ import annotations

import contextlib


_PRIMARY = {}  # device number -> its primary context, kept for the whole session


def device_contexts() -> list:
    """The primary context of every device, in device order (device 0's is the one the notebooks
    already use: helpers.backend makes it current).

    The same objects every time, kept for the whole session: when PyCUDA lets go of a primary
    context (its Python object is garbage collected) it pushes the context to release it and
    does not pop it again, which would leave that device current behind PyCUDA's back."""
    from helpers.backend import drv

    for k in range(drv.Device.count()):
        if k not in _PRIMARY:
            _PRIMARY[k] = drv.Device(k).retain_primary_context()
    return [_PRIMARY[k] for k in range(drv.Device.count())]


@contextlib.contextmanager
def two_devices_on_the_simulator():
    """For the ``with`` block, the simulator presents at least two devices, as the chapter's
    checkers need whatever the learner set (a GPU machine has the devices it has)."""
    from helpers.backend import BACKEND
    from helpers.sim.settings import settings

    if BACKEND != "simulator" or settings.devices >= 2:
        yield
        return
    with settings.changed(devices=2):
        yield


@contextlib.contextmanager
def using(context):
    """Make ``context`` current in this thread for the ``with`` block, then pop it."""
    context.push()
    try:
        yield context
    finally:
        context.pop()


def compile_on_each(contexts, name: str, kernel: str) -> list:
    """``kernel`` from ``cuda_src/<name>``, compiled once in each context (a module belongs to the
    context it was loaded in, so each device needs its own)."""
    from helpers.backend import compile_cu

    functions = []
    for context in contexts:
        with using(context):
            functions.append(compile_cu(name).get_function(kernel))
    return functions
