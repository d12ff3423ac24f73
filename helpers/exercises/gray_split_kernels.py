"""The kernels that notebook 11's checker (``gray_split``) hands the learner: ``kernels[k]``
notes each launch and refuses one a GPU would refuse (outside device k's context, on a grid of
no blocks, given its arguments wrong), naming the mistake; each get() of its output is noted."""

from __future__ import annotations

from collections import namedtuple

from helpers.exercises.function import Refused, current_device
from helpers.exercises.gray_split_models import arrays_swapped, width_in_bytes
from helpers.exercises.gray_split_order import kept

USING_HINT = ("do device k's work inside `with using(contexts[k]):` (from helpers.ch11.multigpu), "
              "which pushes its context and pops it again")


Launch = namedtuple("Launch", "device rows waited copies args grid block",
                    defaults=((), 0, (), (1, 1), (1, 1, 1)))
"""A launch of ``rows`` rows on device ``device``; on the simulator, the devices whose kernels
the host had waited for and how many copies to the host had run when it was made; its arguments
and its grid and block."""


def device_kernel(k, function, launches, order=None, reads=None, freed=None):
    """``kernels[k]``, noting every launch in ``launches`` and refusing one that would fail (or
    run past its share) on a GPU; with ``order`` (on the simulator), launched through it, its
    gpuarrays' freeing noted in ``freed`` (``kept``); with ``reads``, each get() of its output
    noted there: (k, the device whose context was current)."""

    def kernel(*args, **kwargs):
        from helpers.backend import drv

        if drv.Context.get_device() != drv.Device(k):
            raise Refused(_outside_its_context(k, launches))
        if min(kwargs.get("grid", (1, 1))) < 1:
            raise Refused(_empty_grid(k, args))
        if told := width_in_bytes(k, args) or arrays_swapped(k, args):
            raise Refused(told)
        noted = kept(k, args, launches, [] if freed is None else freed, order)
        launches.append(Launch(k, int(args[3]), *(order.seen(k) if order else ((), 0)), noted,
                               tuple(kwargs.get("grid", (1, 1))),
                               tuple(kwargs.get("block", (1, 1, 1)))))
        if reads is not None and hasattr(args[1], "get"):
            _note_reads(args[1], k, reads)
        return order.launch(k, function, args, kwargs) if order else function(*args, **kwargs)

    return kernel


def _outside_its_context(k, launches):
    """(problem, hint) of kernels[k] called while device k's context was not current: called
    again, in another device's context, after it had run in its own (``launches``), it was
    given that device's share; else device k's work was done outside device k's context."""
    failed = "(on a GPU: cuLaunchKernel failed: invalid resource handle)"
    j = current_device()
    if j is not None and any(launch.device == k for launch in launches):
        return (f"kernels[{k}], device {k}'s kernel, was called again, in device {j}'s context: "
                f"device {j}'s share was launched with device {k}'s kernel, which runs only in "
                f"the context it was compiled in, device {k}'s {failed}", "launch device k's "
                "share with its own kernel, kernels[k], inside `with using(contexts[k]):`: "
                "kernels[k] is the one compiled in contexts[k]")
    return (f"kernels[{k}], device {k}'s kernel, was called while device {k}'s context was not "
            f"current {failed}", "a kernel runs in the context it was compiled in: " + USING_HINT)


def _empty_grid(k, args):
    """(problem, hint) of device k's launch on a grid of no blocks: its share empty, or its rows
    (``args[3]``) not its share's (hi - lo) * height (hi - lo * height, when a lo fits)."""
    shape, rows = getattr(args[0], "shape", ()), int(args[3])
    if len(shape) != 4 or shape[0] == 0:
        return (f"device {k} was launched on a grid of no blocks: its share of the images was "
                "empty, and such a launch fails", "when there are fewer images than devices, "
                "some shares are empty: skip a device with nothing to do (if lo == hi: continue)")
    share, height = shape[:2]
    lo = (share - rows) // (height - 1) if height > 1 else -1
    told = (f"device {k}'s kernel was launched on rows = {rows}, where its share of {share} "
            f"images has {share * height} rows")
    if lo > 0 and (lo + share) - lo * height == rows:
        return (f"{told}: rows = hi - lo * height multiplies lo alone by height ({lo + share} - "
                f"{lo} * {height} = {rows}), so its grid has no blocks", "subtract first: rows "
                "= (hi - lo) * height, the parentheses around hi - lo")
    return (f"{told}, so its grid has no blocks", "a share of hi - lo images is one image of "
            "(hi - lo) * height rows for the kernel: rows = (hi - lo) * height")


def _note_reads(out, k, reads):
    """Note in ``reads`` each get() of device k's output ``out``: (k, the current device)."""
    get = out.get

    def read(*args, **kwargs):
        reads.append((k, current_device()))
        return get(*args, **kwargs)

    out.get, read.device = read, k


def whose(out):  # "device k's" for device k's output (its get() noted by _note_reads)
    return f"device {getattr(out.get, 'device', 'k')}'s"
