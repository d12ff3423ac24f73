"""What a notebook cell needs of the GPU, and what it says when this one has less.

Learners' GPUs range from a T4 (compute capability 7.5, Colab's free one) to an H200 (9.0, where
the notebooks' outputs were stored). A cell that uses what only newer GPUs have asks first, and
on a GPU without it, says so in one line and skips, rather than failing in nvcc or at launch:

    if has_compute_capability((8, 0), "__reduce_add_sync"):
        ...
    if has_shared_memory(128 * 1024, "a block of 128 KiB of shared memory"):
        ...

On a GPU that has it, nothing is shown, so the outputs stored from the H200 stay as they were.
What a skip shows is text for the learner and, beside it, a record of its facts (the mimetype
NEEDS_NEWER_GPU: ``what``, ``needs``, ``has``) that tools/cc_matrix.py reads. The simulator
answers as a GPU of CUDA_SIM_COMPUTE_CAPABILITY (default 9.0), so both answers are tried there.
"""

NEEDS_NEWER_GPU = "application/vnd.cuda-course.needs-newer-gpu+json"


def has_compute_capability(needed: tuple[int, int], what: str) -> bool:
    """True when this GPU's compute capability is ``needed`` or newer; otherwise says that
    ``what`` needs a newer GPU, and returns False."""
    from helpers.backend import drv

    have = tuple(drv.Context.get_device().compute_capability())
    if have >= tuple(needed):
        return True
    skip(what, "compute capability %d.%d" % tuple(needed), "compute capability %d.%d" % have)
    return False


def has_shared_memory(bytes_per_block: int, what: str) -> bool:
    """True when a block on this GPU may have ``bytes_per_block`` of shared memory (once its
    kernel opts in); otherwise says that ``what`` needs a GPU with more, and returns False."""
    from helpers.backend import drv

    optin = drv.Context.get_device().get_attribute(
        drv.device_attribute.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
    if bytes_per_block <= optin:
        return True
    skip(what, f"{bytes_per_block // 1024} KiB of shared memory a block",
         f"{optin // 1024} KiB")
    return False


def skip(what: str, needs: str, has: str) -> None:
    """Show, in the running cell, that ``what`` is skipped: it needs ``needs``; this GPU has
    ``has``. Outside IPython (a script), the text is printed."""
    text = f"Skipped on this GPU: {what} needs {needs}; this one has {has}."
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        get_ipython = None
    if get_ipython is None or get_ipython() is None:
        print(text)
        return
    display({"text/plain": text, NEEDS_NEWER_GPU: {"what": what, "needs": needs, "has": has}},
            raw=True)
