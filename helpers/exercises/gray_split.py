"""Checker for notebook 11's exercise (the notebook states it): ``my_gray_split(images, contexts,
kernels)`` converts a batch of RGB images to grey, device k a share, in ``contexts[k]`` with
``kernels[k]``, every device's kernel launched before any result is copied back. The kernels
handed over record each launch and refuse one a GPU would refuse (``gray_split_kernels``). The
simulator shows the order (``function.LaunchOrder``): an array the function lets go of is freed
at once, waiting for its kernel, as on a GPU (``gray_split_order``); a GPU shows no order, and
the verdict says so, as it does with one device."""

from __future__ import annotations

import ast

import numpy as np

from helpers.ch11.multigpu import two_devices_on_the_simulator
from helpers.exercises import hidden as hidden_cases
from helpers.exercises.gray_split_kernels import USING_HINT, device_kernel, whose
from helpers.exercises.gray_split_models import (bounds_left_over, floored_shares,
                                                 grid_x_from_height, host_swapped,
                                                 last_output_read, one_image,
                                                 returned_in_the_collecting_loop, rows_short,
                                                 shape_unpacked_swapped, stored_at_index,
                                                 wrong_type)
from helpers.exercises.gray_split_order import freed_while_running
from helpers.exercises.gray_split_queued import arrived_after_return, at_return
from helpers.exercises.gray_split_shares import divided_first
from helpers.exercises.function import (LaunchOrder, check_function, context_mistakes,
                                        context_stack, copies_to_host, run_catching,
                                        stopped_at_empty, stored_on_the_host)
from helpers.exercises.hidden import awkward
from helpers.exercises.learner_code import code_of
from helpers.exercises.verdict import Verdict, check_cases

KERNEL_FILE, KERNEL_NAME = "grayscale.cu", "rgb_to_gray"
BLOCK = (32, 8)  # the block's x and y that the exercise's TODO gives: block=(32, 8, 1)
WEIGHTS = np.array([0.299, 0.587, 0.114])
# (images, height, width): not a multiple of 2 or 3 devices; fewer images than devices; sides
# that are not multiples of the block.
CASES = [(7, 37, 53), (1, 16, 24), (4, 29, 40)]

SPLIT_HINT = ("give device k the images lo = k * count // n to hi = (k + 1) * count // n "
              "(n = len(contexts)): consecutive shares that differ by one image at most")
TURNS_HINT = ("launch every device's kernel first, in one loop (a launch returns at once, and the "
              "device works while Python goes on), then copy every result back in a second loop: "
              "so the devices work at the same time")


def _shaped_like_rgb(fn, launches):
    """(what it shows, hint) where a launch's output, its second argument, had the shape of its
    input, the RGB share's (count, height, width, 3): allocated like rgb_k, as the statement of
    ``fn``'s code that makes an array *_like another, where there is one, says; else None."""
    like = [launch for launch in launches if len(getattr(launch.args[0], "shape", ())) == 4
            and getattr(launch.args[1], "shape", None) == launch.args[0].shape]
    if not like:
        return None
    shape = tuple(like[0].args[0].shape)
    made = f"device {like[0].device}'s output (the kernel's second argument) has"
    if code := code_of(fn):
        for node in [n for n in ast.walk(code.tree) if isinstance(n, ast.Assign) and len(n.targets) == 1
                     and isinstance(n.value, ast.Call) and n.value.args
                     and ast.unparse(n.value.func).endswith("_like")][:1]:
            name, source = ast.unparse(node.targets[0]), ast.unparse(node.value.args[0])
            made = f"{code.text(node)} ({code.at(node)}) gave {name} the shape of {source},"
    return (f"{made} {shape}, the RGB share's, its last axis the 3 channels, where the grey share "
            f"is {shape[:3]}", "allocate the grey share by its own shape and type: grey_k = "
            "gpuarray.empty((hi - lo, height, width), np.uint8)")


def reference(images: np.ndarray) -> np.ndarray:
    """NumPy's grey images (BT.601, rounded): (count, h, w, 3) uint8 -> (count, h, w) uint8."""
    return np.floor(images @ WEIGHTS + 0.5).astype(np.uint8)


def draw(rng):
    """The grader's cases: a batch of an odd number of images and one of one, of odd sides."""
    return [(count, awkward(rng, 2, 9, 61), awkward(rng, 2, 9, 61))
            for count in (2 * int(rng.integers(2, 6)) + 1, 1)]


def check_gray_split(fn, hidden: int | None = None) -> Verdict:
    """Run ``fn(images, contexts, kernels)`` on a few batches (and those drawn from the seed
    ``hidden``); print and return the Verdict."""
    cases = hidden_cases.cases(CASES, draw, hidden)
    return check_function(fn, "my_gray_split", lambda fn: _verdict(fn, cases))


@two_devices_on_the_simulator()
def _verdict(fn, cases) -> Verdict:
    from helpers.backend import BACKEND
    from helpers.ch11.multigpu import compile_on_each, device_contexts

    contexts = device_contexts()
    functions = compile_on_each(contexts, KERNEL_FILE, KERNEL_NAME)
    n = len(contexts)
    success = (f"the grey images match NumPy's for every batch ({len(CASES)} batches, "
               f"{n} device{'s' if n > 1 else ''}), every context you pushed was popped")
    success += (". This machine has one device, so the split itself could not be checked: "
                "run the check on a machine with several GPUs, or on the simulator, which "
                "presents two devices for it" if n < 2 else
                ", every device converted its share, and every device's kernel was launched "
                "before any result was copied back" if BACKEND == "simulator" else
                ", and every device converted its share. Whether every kernel was launched "
                "before any result was copied back was NOT checked: a GPU does not tell the "
                "order; the simulator does (run the check with CUDA_COURSE_BACKEND=simulator)")
    return check_cases(cases, lambda case: _mistakes(fn, contexts, functions, case),
                       lambda case: f"{case[0]} image{'s' * (case[0] != 1)} of {case[2]} x "
                                    f"{case[1]}, {n} devices",
                       hidden_cases.success(success, CASES, cases))


def _mistakes(fn, contexts, functions, case):
    """Run fn once; yield (problem, hint) for each mistake seen, the most telling first."""
    from helpers.backend import drv

    count, height, width = case
    images = np.random.default_rng(count * 1000 + width).integers(
        0, 256, (count, height, width, 3), dtype=np.uint8)
    launches, reads, freed, n, returned = [], [], [], len(functions), []
    before = context_stack()
    with copies_to_host() as copied:
        order = None if copied is None else LaunchOrder(copied)
        kernels = [device_kernel(k, function, launches, order, reads, freed)
                   for k, function in enumerate(functions)]
        def call():  # the result as returned kept, then every device's queued work waited for
            result = fn(images.copy(), list(contexts), kernels)
            returned.append(at_return(result, contexts))
            return result

        raised, result = run_catching(
            call, "replace the TODOs with your code",
            [(ValueError, lambda _: _shaped_like_rgb(fn, launches)),
             (ValueError, lambda _: last_output_read(reads, launches, count, n)),
             (ValueError, lambda err: bounds_left_over(fn, err, reads, launches, count, n)),
             *((kind, stored_on_the_host(fn, whose)) for kind in (TypeError, ValueError)),
             (ValueError, lambda err: shape_unpacked_swapped(fn, err, height, width)
              or host_swapped(fn, err, count, height, width) or stored_at_index(fn, err)),
             (drv.Error, "a copy or a kernel failed: device k's arrays must be made with device "
                         "k's context current, " + USING_HINT)],
            "the message says what went wrong on that line. Device k's share is images[lo:hi], "
            "its output a (hi - lo, height, width) uint8 array")
    after = context_stack(restore=before)
    yield from _rows_past_the_share(fn, launches, height, width)   # before what the reads past did
    if raised:
        yield raised
        return
    yield from context_mistakes(before, after, USING_HINT)
    yield from arrived_after_return(returned[0], result)
    wrong = list(_wrong_result(result, images, fn))
    if not wrong:
        yield from _idle_devices(launches, len(functions), count, height, fn)
    if wrong and (told := last_output_read(reads, launches, count, n) or (
            returned_in_the_collecting_loop(fn, result, reference(images), launches, reads))):
        yield told
    # a copy that did not wait for its kernel explains wrong images first
    yield from _copied_from_another_context(copied or ())
    if wrong:
        yield from floored_shares(fn, result, reference(images), n)
        done = [sum(launch.rows for launch in launches if launch.device == k) // height
                for k in range(n)]
        yield from stopped_at_empty([(k + 1) * count // n - k * count // n for k in range(n)],
                                    done, "image", "converted")
        yield from _wrong_launches(fn, launches, n, count, height, width)
    yield from wrong or _took_turns(launches, copied or (), fn, freed)


def _wrong_launches(fn, launches, n, count, height, width):
    """With the result wrong: a device with a share never launched, launches that could not
    convert their share (its rows, its grid, its arrays)."""
    for k in sorted({k for k in range(n) if k * count // n < (k + 1) * count // n and launches}
                    - {launch.device for launch in launches})[:1]:  # (none launched: the stub)
        yield (f"device {k}'s kernel was never launched: its share, images {k * count // n} to "
               f"{(k + 1) * count // n - 1}, was not converted", "launch every device's kernel, "
               "for k in range(len(contexts))")
    for launch in launches:
        (gx, gy), (bx, by) = launch.grid[:2], launch.block[:2]
        uploaded = getattr(launch.args[0], "size", 0) // (3 * width)   # rows of RGB on the device
        if uploaded != width and [int(a) for a in launch.args[2:4]] == [uploaded, width]:
            yield (f"device {launch.device}'s kernel got its two ints in the wrong order: width = "
                   f"{uploaded} (the share's rows) and height = {width} (the images' width), where "
                   "rgb_to_gray(rgb, gray, width, height) takes the width, then the rows",
                   "pass them in the kernel's order: kernels[k](rgb_k, grey_k, np.int32(width), "
                   "np.int32(rows), ...)")
        if n > 1 and uploaded == count * height > launch.rows:
            yield (f"device {launch.device} was given all {count} images but converts "
                   f"{launch.rows // height}: its kernel reads from the batch's start",
                   "copy only the device's share to it: gpuarray.to_gpu(images[lo:hi])")
        if uploaded > launch.rows:
            yield rows_short(fn, launch, height, uploaded)
        if gx * bx < width or gy * by < launch.rows:
            if told := grid_x_from_height(fn, launch, width, height):
                yield told
            yield from _grid_short(launch, width, height)
        if getattr(launch.args[1], "dtype", np.uint8) != np.uint8:
            yield (f"device {launch.device}'s output is {launch.args[1].dtype}, but the kernel "
                   "writes bytes (unsigned char)", "make grey_k uint8: gpuarray.empty((hi - lo, "
                   "height, width), np.uint8)")


def _rows_past_the_share(fn, launches, height, width):
    """A launch told of more rows than its share uploaded (the kernel reads past rgb_k's end):
    one image uploaded (one_image), width where height belongs in rows, else any such count."""
    for launch in launches:
        share = getattr(launch.args[0], "shape", (0,))[0]
        uploaded = getattr(launch.args[0], "size", 0) // (3 * width)
        if int(launch.args[2]) != width or launch.rows <= uploaded:
            continue
        if told := one_image(fn, launch, height, width):  # images[k] for images[lo:hi]
            yield told
            return
        told = (f"device {launch.device}'s kernel was launched on rows = {launch.rows}")
        has = f"its share of {share} images has {uploaded} rows"
        if launch.rows == share * width and uploaded == share * height:
            told += (f" = (hi - lo) * width ({share} * {width}), where {has}, (hi - lo) * height "
                     f"({share} * {height}): width where height belongs")
        else:
            told += f", where {has}"
        yield (f"{told}, so the kernel was told of more rows than the share has and read past "
               "the end of rgb_k", "a share of hi - lo images is one image of (hi - lo) * height "
               "rows for the kernel: rows = (hi - lo) * height")
        return


def _grid_short(launch, width, height):
    """A grid that does not cover the share's width x rows: its axes swapped, one image's rows,
    the block's axes swapped (the grid made for the block the right way round), or rounded
    down."""
    (gx, gy), (bx, by), rows = launch.grid[:2], launch.block[:2], launch.rows
    covers = f"device {launch.device}'s grid covers {gx * bx} x {gy * by} pixels of its {width} x {rows}"
    if (gx, gy) == (-(-rows // by), -(-width // bx)):
        yield (f"{covers}: its x and y are swapped", "grid x counts the blocks across a row, "
               "grid y those down the rows: ((width + 31) // 32, (rows + 7) // 8)")
    if gy == -(-height // by) and gy * by < rows:
        yield (f"{covers}: its y covers one image's {height} rows, not the share's {rows}",
               "the share is one image of rows = (hi - lo) * height rows: grid y = (rows + 7) // 8")
    if (bx, by) == BLOCK and (gx, gy) == (-(-width // by), -(-rows // bx)):
        yield (f"device {launch.device}'s grid ((width + {by - 1}) // {by}, (rows + {bx - 1}) // "
               f"{bx}) divides the width by {by} and the rows by {bx}, where its block is ({bx}, "
               f"{by}, 1): its divisors are swapped, so it covers {gx * bx} x {gy * by} pixels of "
               f"the share's {width} x {rows}", f"divide the width by block x ({bx}) and the rows "
               f"by block y ({by}): grid = ((width + {bx - 1}) // {bx}, (rows + {by - 1}) // {by})")
    if bx != by and (gx, gy) == (-(-width // by), -(-rows // bx)):
        yield (f"device {launch.device}'s block is ({bx}, {by}, 1), its x and y swapped: the grid "
               f"((width + {by - 1}) // {by}, (rows + {bx - 1}) // {bx}) is made for blocks of "
               f"({by}, {bx}, 1), so it covers {gx * bx} x {gy * by} pixels of the share's "
               f"{width} x {rows}", f"block=({by}, {bx}, 1): block x runs along a row ({by} "
               f"threads), block y down the rows ({bx}), as the grid counts them")
    if gx == width // bx and gx * bx < width or gy == rows // by and gy * by < rows:
        yield (f"{covers}: rounded down", "round the grid up: "
               "((width + 31) // 32, (rows + 7) // 8) for blocks of (32, 8, 1)")
    yield (f"{covers}: grid x times block x must reach the width, grid y times block y the rows",
           f"for blocks of ({bx}, {by}, 1): grid = ((width + {bx - 1}) // {bx}, (rows + {by - 1}) "
           f"// {by})")


def _wrong_result(result, images, fn=None):
    count, height, width, _ = images.shape
    want = reference(images)
    if not isinstance(result, np.ndarray):
        yield (f"your function returned {type(result).__name__}, not a NumPy array",
               f"return the grey images, an array of shape ({count}, {height}, {width})")
        return
    if result.shape == (count, width, height) and (told := shape_unpacked_swapped(fn, None, height, width)):
        yield told
    if result.shape != want.shape or result.dtype != want.dtype:
        yield wrong_type(fn, result, want)
        return
    # same[i, j]: image i of the result is image j's grey, to one level
    same = np.abs(result[:, None].astype(np.int16) - want[None]).max(axis=(2, 3)) <= 1
    wrong = np.flatnonzero(~same.diagonal())
    if not wrong.size:
        return
    if (result == 0).all():
        yield ("none of the images was converted: the result is all 0",
               "launch each device's kernel on its share and copy its results back into "
               "grey[lo:hi]")
    for i in wrong[same[wrong].any(axis=1)]:
        yield (f"image {i} of the result holds the grey version of image {same[i].argmax()}",
               "put each device's results back at its own images' place: grey[lo:hi]")
    listed = ", ".join(str(i) for i in wrong[:8]) + (", ..." if wrong.size > 8 else "")
    yield (f"{wrong.size} of {count} grey images are wrong (images {listed})",
           "every image must be converted once, by one device: " + SPLIT_HINT)


def _idle_devices(launches, n, count, height, fn):
    """With the result right: did every device convert a share, and shares of even size?"""
    if n < 2:
        return
    rows = np.zeros(n, np.int64)
    for launch in launches:
        rows[launch.device] += launch.rows
    if not launches:
        yield ("the result is right, but none of kernels[k] was launched",
               "convert the images with the kernels you are given, kernels[k] on device k")
    yield from divided_first(fn, rows // height, count, n)
    idle = [k for k in range(n) if rows[k] == 0]
    if idle and count >= n:
        names = ", ".join(str(k) for k in idle)
        yield (f"the result is right, but device{'s' if len(idle) > 1 else ''} {names} did no "
               f"work: {count} images and {n} devices", "every device takes a share: " + SPLIT_HINT)
    shares = rows // height
    if shares.max() - shares.min() > 1 and count >= n:
        yield (f"the result is right, but the shares are uneven: the devices converted "
               f"{', '.join(str(int(s)) for s in shares)} images", SPLIT_HINT)


def _copied_from_another_context(copied):
    """A copy back of a device's results in another's context waits for the wrong work."""
    for copy in copied:
        if copy.device is not None and copy.device != copy.after:
            yield (f"device {copy.device}'s results were copied back while device {copy.after}'s "
                   f"context was current: that copy waits only for device {copy.after}'s work, "
                   f"so it may read device {copy.device}'s results before its kernel has "
                   "written them",
                   "copy each device's results with its own context current: " + USING_HINT)
            return


def _took_turns(launches, copied, fn, freed):
    """With the result right: did the host wait for a device's kernel before the next launch
    (by copying its result back, by freeing an array of its (``freed``), or by a synchronize)?"""
    for j, launch in enumerate(launches):
        for i in launch.waited:
            start = next(earlier.copies for earlier in launches[:j] if earlier.device == i)
            if any(copy.device == i for copy in copied[start:launch.copies]):
                yield (f"the result is right, but device {i}'s result was copied back before "
                       f"device {launch.device}'s kernel was launched: the devices took turns",
                       TURNS_HINT)
            elif told := freed_while_running(fn, launches, freed, j, i):
                yield told
            else:
                yield (f"the result is right, but your function waited for device {i}'s kernel "
                       f"to finish (a synchronize inside the loop waits for it) before it "
                       f"launched device {launch.device}'s: the devices took turns",
                       "wait only where the results are copied back: " + TURNS_HINT)
            return
