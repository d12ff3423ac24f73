"""How large the notebooks' problems are, and what they use: a class that shares one machine
makes them smaller.

    CUDA_COURSE_CLASS_SIZE=30 jupyter lab ...      (or: make lab CLASS_SIZE=30)

With ``CUDA_COURSE_CLASS_SIZE=N`` (default 1), ``share(size)`` gives a notebook's working size
divided by N, rounded down to a power of two, and never below the notebook's ``minimum``, so that
N learners running the same notebook at once fit on one machine: notebook 05, which holds about
1 GiB of page-locked host memory (and as much on the GPU) for one learner, holds about 32 MiB
for each of 30. The figures a notebook measures change with the sizes (small copies reach less
of the bus's bandwidth); the checks do not.

``report()``, at the end of each notebook, prints what the notebook's process
used: its peak resident host memory and, on a GPU, the device memory in use.
"""

from __future__ import annotations

import resource

from helpers import settings


def _class_size(text: str | None) -> int:
    text = (text or "1").strip()
    try:
        size = int(text)
    except ValueError:
        size = 0
    if size < 1:
        raise ValueError(f"CUDA_COURSE_CLASS_SIZE={text!r}: give the number of learners who share "
                         "this machine, a whole number of at least 1 (e.g. 30)")
    return size


CLASS_SIZE = _class_size(settings.get(settings.CLASS_SIZE) or None)


def share(size: int, minimum: int = 1) -> int:
    """``size`` for one learner of the class: divided by CLASS_SIZE, rounded down to a power of
    two (for a class of one: unchanged), never below ``minimum``."""
    if CLASS_SIZE == 1:
        return size
    part = max(size // CLASS_SIZE, 1)
    return max(1 << (part.bit_length() - 1), minimum)


def report() -> None:
    """Print the memory this notebook's process used, and the class size it ran for."""
    from helpers.backend import BACKEND, drv

    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024   # Linux: KiB
    text = f"This notebook's process used at most {peak_mib:,.0f} MiB of host memory"
    if BACKEND == "pycuda":
        free, total = drv.mem_get_info()
        text += (f"; the GPU has {(total - free) / 2**20:,.0f} MiB of its "
                 f"{total / 2**30:.0f} GiB in use now (by every process on it)")
    print(text + ".")
    print(f"Sizes were chosen for a class of {CLASS_SIZE} sharing this machine "
          "(CUDA_COURSE_CLASS_SIZE; see the README).")
