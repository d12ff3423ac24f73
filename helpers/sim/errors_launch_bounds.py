"""The simulator's error for a launch of more threads a block than the kernel's
``__launch_bounds__`` allows (errors.py holds the others; this one did not fit there)."""

from .errors import LaunchError


class LaunchBoundsError(LaunchError):
    """A block of more threads than the first number of the kernel's ``__launch_bounds__``, which
    a GPU refuses to launch (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested
    for launch"; kind "launch bounds"): ``max_threads`` (that number), ``threads`` (the block's)
    and ``block_dim`` (its shape, (x, y, z)), with ``kernel``. ``block`` and ``thread`` are None:
    no thread ran."""

    def __init__(self, msg, *, max_threads, threads, block_dim, **facts):
        super().__init__(msg, kind="launch bounds", **facts)
        self.max_threads, self.threads, self.block_dim = max_threads, threads, block_dim
