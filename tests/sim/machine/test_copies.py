"""Copies and fills of device memory (machine/copies.py)."""

import numpy as np
import pytest

from helpers.sim import driver as drv


def test_copies_larger_than_the_allocation_are_refused():
    d = drv.mem_alloc(16)
    with pytest.raises(drv.LogicError, match="do not fit"):
        drv.memcpy_htod(d, np.zeros(5, np.float32))
