"""Small pieces shared by the exercise checkers.

- ``GuardedOutput`` is an output buffer pre-filled with poison (NaN for floats) followed by a
  guard zone, so that a checker can tell "never written" and "written past the end" apart from
  "written wrong".
- ``launch_catching(launch)`` runs a launch and synchronizes, and turns the errors a wrong kernel
  causes into a message instead of an exception.

The verdicts themselves, and the loop that finds them, are in ``helpers.exercises.verdict``.

The backend (``helpers.backend``) is imported inside the functions, so that importing a checker
module costs nothing until it runs.
"""

from __future__ import annotations

import numpy as np

GUARD = 64
"""Elements of guard zone after each output buffer: a kernel that forgets its bounds guard
writes into it (the launch rounds the thread count up to a whole number of blocks)."""

INT_POISON = -559038737  # 0xDEADBEEF as a signed 32-bit int; also fits (wrapped) in smaller ints


def poison_value(dtype) -> object:
    """NaN for floating-point types, 0xDEADBEEF (wrapped to the type's width) for integers."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return dtype.type(np.nan)
    if dtype.kind in "iu":
        return np.array(INT_POISON).astype(dtype)[()]
    raise TypeError(f"no poison value for dtype {dtype}")


def is_poison(values: np.ndarray) -> np.ndarray:
    """Boolean mask: True where ``values`` still holds the poison value (never written).

    For 8- and 16-bit integers the poison is a value a kernel could also write (0xEF for uint8):
    treat a match there as "probably never written", after comparing with the expected result.
    """
    if values.dtype.kind == "f":  # the poison's own bits: a NaN a kernel computed is written
        bits = np.dtype(f"u{values.dtype.itemsize}")
        return values.view(bits) == np.array(poison_value(values.dtype)).view(bits)
    return values == poison_value(values.dtype)


class GuardedOutput:
    """A device output buffer of ``shape`` followed by ``guard`` spare elements, all poisoned.

    Pass ``out.gpu`` (a GPUArray of ``size + guard`` elements, flat) to the kernel, run it, then
    ``result, guard_untouched = out.read()``: ``result`` has ``shape``; ``guard_untouched`` is False
    when the kernel wrote past the end of the output.
    """

    def __init__(self, shape, dtype=np.float32, guard: int = GUARD):
        from helpers.backend import gpuarray

        self.shape = (shape,) if np.isscalar(shape) else tuple(shape)
        self.dtype = np.dtype(dtype)
        self.size = int(np.prod(self.shape))
        self.guard = guard
        host = np.full(self.size + guard, poison_value(self.dtype), dtype=self.dtype)
        self.gpu = gpuarray.to_gpu(host)

    def read(self) -> tuple[np.ndarray, bool]:
        """Copy back: ``(result reshaped to shape, True if the guard zone is still all poison)``."""
        host = self.gpu.get()
        result = host[: self.size].reshape(self.shape)
        return result, bool(is_poison(host[self.size:]).all())

    def written_past_end(self) -> np.ndarray:
        """Flat indices (counted from the start of the output) past its end that were written."""
        return np.flatnonzero(~is_poison(self.gpu.get()[self.size:])) + self.size


def launch_catching(launch) -> str | None:
    """Run ``launch()`` then ``Context.synchronize()``; return None, or what went wrong.

    A kernel that reads or writes far outside its arrays makes the simulator raise
    ``drv.LaunchError`` (naming the block and thread); PyCUDA reports the GPU's "illegal
    address" as ``drv.LogicError``, as it does a bad launch configuration (a block of more than
    1024 threads). Those come back as a message for ``not_yet``. (After an illegal address a
    GPU's context is unusable: restart the Jupyter kernel.) A ``TypeError`` (arguments the
    kernel does not take) is raised again as ``verdict.KernelArgumentError``.
    """
    from helpers.backend import drv
    from helpers.exercises.verdict import KernelArgumentError

    try:
        launch()
        drv.Context.synchronize()
    except TypeError as err:  # the simulator checks arguments against the kernel's parameters
        raise KernelArgumentError(str(err)) from err
    except drv.LaunchError as err:
        if getattr(err, "kind", None) == "time limit":
            raise  # not a crash: verdict.first_mistake names it
        return f"the kernel crashed: {err}"
    except drv.LogicError as err:
        return f"the launch failed: {err}"
    return None
