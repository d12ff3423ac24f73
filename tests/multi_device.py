"""What the tests that need two devices share: ``several_devices()``."""

import contextlib

import pytest

from helpers.backend import BACKEND, drv


@contextlib.contextmanager
def several_devices():
    """At least two devices: the simulator presents two; a GPU machine must have them."""
    if BACKEND == "simulator":
        from helpers.sim.settings import settings

        with settings.changed(devices=max(settings.devices, 2)):
            yield
    elif drv.Device.count() < 2:
        pytest.skip("needs two GPUs")
    else:
        yield
