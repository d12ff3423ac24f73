"""Checker for notebook 12's exercise: notebook 04's sepia kernel ported to OpenCL
(``cuda_src/opencl/exercises/sepia.cl``).

The kernel ``sepia(rgb, out, width, height)`` computes what ``helpers.exercises.sepia`` describes:
each pixel's three bytes through the sepia matrix, rounded and clamped to 255. This checker runs it
the same way, on the cases of that checker: image sides that are not multiples of the work-group,
two work-group shapes, the output poisoned and the kernel run twice with two poison bytes, spare
bytes past the end of the input. It names the mistakes of a port (a local id where the global one
belongs, the dimensions swapped, a cast where a saturating conversion belongs) in OpenCL's words.

A value counts as right when it equals NumPy's, or is one level off where the exact sum lies
within ``ROUNDING_SLACK`` of a rounding boundary (float32 and a fused multiply-add may land on the
other side there). So a kernel that truncates instead of rounding fails.

It runs on the platform ``helpers.ch12.opencl.choose_platform()`` picks. On Oclgrind it also reads
Oclgrind's reports of accesses outside a buffer, which name the line of the kernel.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises import hidden as hidden_cases
from helpers.exercises import opencl_kernel
from helpers.exercises import sepia
from helpers.exercises.common import device_arguments
from helpers.exercises.coverage import Words
from helpers.exercises.sepia import (CASES, CHANNEL_NAMES, ROUNDING_SLACK, SEPIA, _differs,
                                     reference)
from helpers.exercises.verdict import Verdict, check_cases

KERNEL = "sepia"
SUCCESS = ("every pixel matches NumPy's sepia, rounded and clamped, for every size tried "
           f"({len(CASES)} images with odd sides, two work-group shapes), and nothing written "
           "outside the image")

INDEX_HINT = ("x = get_global_id(0) (the column), y = get_global_id(1) (the row), pixel "
              "i = y * width + x; get_local_id is the position inside the work-group only "
              "(CUDA's threadIdx)")
GUARD_HINT = ("the global range is rounded up to whole work-groups, so some work-items lie "
              "outside the image: start the kernel with if (x >= width || y >= height) return;")
WORDS = Words(index_hint=INDEX_HINT, guard_hint=GUARD_HINT, block="work-group",
              thread="work-item", forgot=("x and y use get_local_id", "x uses get_local_id",
                                          "y uses get_local_id"),
              store_hint="each work-item should store its three results in out[3*i], "
                         "out[3*i + 1], out[3*i + 2], with i = y * width + x: an index that lands "
                         "outside out writes nothing the checker can see (a GPU gives no error "
                         "for it)")
CLAMP_HINT = ("convert_uchar_sat(value + 0.5f) rounds to the nearest level and clamps to 0..255; "
              "a plain (uchar) cast of a float above 255 does not stop at 255")
LAYOUT_HINT = ("pixel i's red, green and blue are at 3*i, 3*i + 1 and 3*i + 2, in rgb and in out "
               "alike, and row c of the matrix gives output channel c: "
               "out[3*i] = convert_uchar_sat(0.393f*r + 0.769f*g + 0.189f*b + 0.5f), and so on")


def check_sepia_opencl(path: str = "exercises/sepia.cl", hidden: int | None = None) -> Verdict:
    """Build ``cuda_src/opencl/<path>``, run it on awkward sizes (and, given the seed
    ``hidden``, on the sizes notebook 04's sepia draws from it: ``helpers.exercises.hidden``);
    print and return the Verdict."""
    from helpers.ch12 import opencl

    platform, _ = opencl.choose_platform()
    kernel = _build(opencl.context(platform), path)
    if isinstance(kernel, Verdict):
        return kernel.report()
    return check_sepia_opencl_kernel(kernel, hidden)


def check_sepia_opencl_kernel(kernel, hidden: int | None = None) -> Verdict:
    """The checks of ``check_sepia_opencl`` on a built ``sepia`` kernel (a ``cl.Kernel``)."""
    cases = hidden_cases.cases(CASES, sepia.draw, hidden)
    return check_cases(cases, lambda case: _mistakes(kernel, case), _where,
                       hidden_cases.success(SUCCESS, CASES, cases)).report()


def _build(ctx, path):
    """The ``sepia`` kernel of ``path``, or the verdict that says why there is none."""
    return opencl_kernel.build(ctx, path, KERNEL, "__global const uchar *rgb, __global uchar "
                               "*out, int width, int height")


def _where(case):
    return (f"width = {case.width}, height = {case.height}, local size = {case.block}, global "
            f"size = {case.threads}")


def _launch_twice(kernel, launch, case):
    """Run the kernel with sepia's ``launch``'s arguments over the global size of ``case``,
    once per poison byte; return (the output's ``common.Result``, Oclgrind's messages), or a
    string saying how the launch failed."""
    import types

    import pyopencl.array as cla

    from helpers.ch12 import oclgrind, opencl

    queue = opencl.cl.CommandQueue(kernel.context)
    device = types.SimpleNamespace(to_gpu=lambda host: cla.to_device(queue, host))
    (output,) = launch.outputs
    hosts, messages = [], []
    try:
        rgb, _, width, height = device_arguments(launch.args, device)
        for k in range(len(output.poisons)):
            out = output.device(device, k)

            def run(out=out):
                kernel(queue, case.threads, case.block, rgb.data, out.data, width, height)
                queue.finish()
            if opencl.is_oclgrind(queue.device.platform):
                messages += oclgrind.captured(run)
            else:
                run()
            hosts.append(out.get())
    except opencl.cl.Error as err:
        return f"the kernel failed: {err}"
    return output.read(hosts), messages


def _mistakes(kernel, case):
    """Launch one case; yield (problem, hint) for each mistake seen, the most specific first."""
    launch = sepia._launch(case)
    ran = _launch_twice(kernel, launch, case)
    if isinstance(ran, str):
        yield ran, "a work-item went outside the image: " + GUARD_HINT
        return
    out, messages = ran
    outside = [m for m in messages if m.kind.startswith("Invalid")]
    if outside:
        m = min(outside, key=lambda m: m.work_items)
        yield (f"Oclgrind reported {len(outside)} accesses outside a buffer, the first by "
               f"work-item {m.work_items[0][:2]}: {m.kind.lower()} at "
               f"{m.where or 'an unknown line'}",
               INDEX_HINT + "; and " + GUARD_HINT)
    yield from sepia.written_mistakes(out, case, WORDS, INDEX_HINT + "; and " + GUARD_HINT,
                                      GUARD_HINT)
    yield from _wrong_values(launch.model, out.got)


def _wrong_values(rgb, got):
    """Mistakes the values show once every byte was written (none when the kernel is right)."""
    exact = rgb @ SEPIA.T
    wrong = _differs(got, reference(rgb), exact)
    if not wrong.any():
        return
    wy, wx, wc = np.argwhere(wrong)[0]
    first = (f"x = {wx}, y = {wy}, {CHANNEL_NAMES[wc]}: got {got[wy, wx, wc]}, expected "
             f"{reference(rgb)[wy, wx, wc]}, the exact sum is {exact[wy, wx, wc]:.2f}")
    if (wrong <= (exact + 0.5 >= 256)).all():
        yield (f"{int(wrong.sum())} values are wrong, all where the sum goes past 255 ({first})",
               "clamp while converting: " + CLAMP_HINT)
    # Truncation: one level low wherever the fraction is .5 or more (or, in float32, where an
    # exact whole number came out a hair below it).
    low = got.astype(np.int16) == reference(rgb).astype(np.int16) - 1
    fraction = exact - np.floor(exact)
    if (wrong <= (low & ((fraction > 0.5 - ROUNDING_SLACK) | (fraction < ROUNDING_SLACK)))).all():
        yield (f"{int(wrong.sum())} values are one level low, where the sum's fraction is .5 or "
               f"more ({first}): the kernel truncates instead of rounding",
               "converting a float to uchar drops the fraction: " + CLAMP_HINT)
    yield from sepia.mixed_up(rgb, got, LAYOUT_HINT)
    yield (f"{int(wrong.sum())} of {got.size} values are wrong (the first: {first})",
           LAYOUT_HINT)
