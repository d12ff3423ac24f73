"""Models of the pixels a wrong index of ``gray_coalesced`` writes
(``helpers.exercises.gray_coalesced``)."""

from __future__ import annotations

import dataclasses

import numpy as np

from helpers.exercises import microscope


def row_by_height(missing, past, width, height):
    """i = y * height + x (the height where the width belongs): the pixels written are exactly
    those indices (inside gray, and those past it past the end), each the grey of pixel i."""
    n = width * height
    if width == height or not missing.size:
        return
    t = np.arange(n)
    at = np.unique(t // width * height + t % width)
    if not (np.array_equal(np.setdiff1d(np.arange(n), missing), at[at < n])
            and set(past.tolist()) == set(at[at >= n].tolist())):
        return
    yield (f"the pixel index steps a row by height = {height} pixels where a row is width = "
           f"{width}: i = y * height + x puts pixel (x, y) at y * {height} + x, so the rows "
           f"{'overlap' if height < width else 'leave gaps'} and {missing.size} of {n} pixels "
           f"were never written (the first at x = {missing[0] % width}, y = "
           f"{missing[0] // width})", "a row is width pixels long: i = y * width + x")


WHY = {"width": "one block a row (as in mandelbrot_rows) is not this grid, whose blocks hold "
                "blockDim.x = {block} threads, not width = {stride}",
       "gridDim.x": "gridDim.x = {stride} is the number of blocks, not the threads a block "
                    "holds, blockDim.x = {block}"}


LOOSE = (5, 3, 32), 4
"""A 5 x 3 image launched with 4 blocks of 32 threads on the simulator: 128 threads, more than
3 * width * height = 45, so that a guard which returns from t = 3 * width * height on shows."""


def guard_past_the_image(kernels, past, n, launch_of, threads):
    """Threads t = n on wrote past the end of gray (``past``, its elements), where on ``LOOSE``
    (``launch_of(case)``, the exercise's launch, given more blocks) only the threads below k *
    width * height did, k a whole number below the grid's: the guard returns from t = k *
    width * height on (k = 3: rgb's bytes), where a thread has one pixel. First, a guard of the
    block's first pixel (``guard_of_the_block``; ``threads``: the case's grid's)."""
    yield from guard_of_the_block(kernels, past, n, threads, launch_of)
    (width, height, block), blocks = LOOSE
    small = width * height
    wrote = _loose_past(kernels, launch_of)
    bound = small + wrote.size
    if not np.array_equal(past, np.arange(n, n + past.size)) or not wrote.size or \
            not np.array_equal(wrote, np.arange(small, bound)) or bound % small or \
            bound >= blocks * block:
        return
    k = bound // small
    yield (f"threads t = {n} to {n + past.size - 1} passed the bounds guard and wrote past the end "
           f"of gray (as far as gray[{int(past[-1])}]; it has {n} pixels): the guard lets every "
           f"thread t < {k} * width * height = {k * n} through" + (": it counts rgb's bytes, 3 a "
                                                                   "pixel," if k == 3 else ",") +
           f" where a thread has one pixel and gray width * height = {n} bytes (on the simulator, "
           f"a {width} x {height} image with {blocks * block} threads: threads {small} to "
           f"{bound - 1} wrote past gray's end, {bound} on returned)",
           f"a thread a pixel: if (t >= width * height) return;, without the {k}")


def _loose_past(kernels, launch_of):
    """The elements past gray's end that the threads of ``LOOSE`` wrote on the simulator (none
    where the launch failed there)."""
    seen = microscope.observe(kernels, dataclasses.replace(launch_of(LOOSE[0]), grid=(LOOSE[1], 1)),
                              key="more threads than rgb's bytes", racecheck=False)
    return seen.outs[0].past if seen.error is None else np.zeros(0, int)


def guard_of_the_block(kernels, past, n, threads, launch_of):
    """The last block's spare threads, t = n to the grid's last (``threads - 1``), wrote past
    gray's end, where on ``LOOSE`` only block 0's did, and the blocks that start past the image
    nothing: the guard tests the block's first pixel, blockIdx.x * blockDim.x, not t."""
    (width, height, block), blocks = LOOSE
    small = width * height
    if not np.array_equal(past, np.arange(n, threads)) or \
            not np.array_equal(_loose_past(kernels, launch_of), np.arange(small, block)):
        return
    yield (f"threads t = {n} to {threads - 1}, the last block's spare threads, passed the bounds "
           f"guard and wrote past the end of gray (as far as gray[{threads - 1}]; it has {n} "
           "pixels): the guard tests the block's first pixel, blockIdx.x * blockDim.x, which is "
           "below width * height for every thread of the last block, not the thread's own t (on "
           f"the simulator, a {width} x {height} image with {blocks} blocks of {block} threads: "
           f"block 0's threads {small} to {block - 1} wrote past gray's end, and blocks 1 to "
           f"{blocks - 1}, whose first pixels lie past it, wrote nothing)",
           "test the thread's own pixel: if (t >= width * height) return;")


def blocks_of(case, out, missing, grey, stride, name):
    """t = blockIdx.x * stride + threadIdx.x (stride: width, one block a row as in
    mandelbrot_rows, or gridDim.x for blockDim.x): block b's threads take pixels b * stride to
    b * stride + blockDim.x - 1 (those below width * height, the guard being on t), each its
    right grey (``grey``, NumPy's); the model: exactly those written, the others not."""
    width, height, block = case[:3]
    n, blocks = width * height, -(-width * height // block)
    b, k = np.indices((blocks, block))
    t = (b * stride + k).ravel()
    drawn = np.zeros(n, bool)
    drawn[t[(t >= 0) & (t < n)]] = True
    if drawn.all() or missing.tolist() != np.flatnonzero(~drawn).tolist() or np.abs(
            out.got.ravel()[drawn].astype(int) - grey.ravel()[drawn]).max() > 1:
        return
    runs = ("each run overlapping the next block's (some pixels got two threads)"
            if block > stride else f"leaving {stride - block} pixels between one block's "
            "run and the next's")
    yield (f"thread t took t = blockIdx.x * {name} + threadIdx.x: block b's {block} threads took "
           f"pixels b * {stride} to b * {stride} + {block - 1}, {runs}, and {missing.size} of {n} "
           f"pixels were never written (from x = {missing[0] % width}, y = {missing[0] // width})"
           f": {WHY[name].format(block=block, stride=stride)}", f"a block has blockDim.x "
           f"threads, not {name}: int t = blockIdx.x * blockDim.x + threadIdx.x; (x = t % width, "
           "y = t / width as they are)")


def plain_average(got, rgb, wrong):
    """bt601_gray as (r + g + b) / 3, the unweighted average in unsigned ints (the model,
    exact: integer division truncates)."""
    mean = rgb.astype(np.int64).sum(axis=-1) // 3
    if not np.array_equal(got.astype(np.int64).ravel(), mean.ravel()):
        return
    at = int(wrong[0])
    r, g, b = (int(v) for v in rgb.reshape(-1, 3)[at])
    yield (f"{wrong.size} of {got.size} grey values are wrong, each the plain average (r + g + "
           f"b) / 3 of its pixel: bt601_gray does not weigh the channels (pixel {at}, rgb = "
           f"({r}, {g}, {b}), got {mean.ravel()[at]}, where 0.299 * {r} + 0.587 * {g} + 0.114 * "
           f"{b} rounds to {int(0.299 * r + 0.587 * g + 0.114 * b + 0.5)})", "grey weighs "
           "green most and blue least: return (unsigned char)(0.299f * r + 0.587f * g + "
           "0.114f * b + 0.5f);")


def bracket_slip(got, rgb, wrong, grey):
    """A channel's + k outside the brackets, rgb[3 * i] + k for rgb[3 * i + k] (green, blue or
    both): that channel the red byte plus k (the model, ``grey`` of those channels, within a
    level as a GPU's fused multiply-adds may land)."""
    names = ("red", "green", "blue")
    for slipped in ((1,), (2,), (1, 2)):
        taken = rgb.astype(np.int64)
        for k in slipped:
            taken[..., k] = taken[..., 0] + k
        model = grey(taken)
        if not (np.abs(got.astype(int) - model) <= 1).all():
            continue
        at = int(wrong[0])
        pixel = [int(v) for v in rgb.reshape(-1, 3)[at]]
        said = " and ".join(f"{names[k]} taken as rgb[3 * i] + {k}" for k in slipped)
        yield (f"{wrong.size} of {got.size} grey values are wrong, each the grey of its pixel "
               f"with {said}, the red byte plus {' and '.join(str(k) for k in slipped)}, not "
               f"the {' and '.join(names[k] for k in slipped)} byte (pixel {at}: rgb = "
               f"{tuple(pixel)}, {', '.join(f'{names[k]} passed as {pixel[0] + k}, not {pixel[k]}' for k in slipped)}"
               f": grey {int(got.ravel()[at])}, expected {int(grey(rgb).ravel()[at])})",
               "the + " + " and + ".join(str(k) for k in slipped) + " goes inside the brackets: "
               + ", ".join(f"rgb[3 * i + {k}] is the {names[k]} byte" for k in slipped)
               + "; " + ", ".join(f"rgb[3 * i] + {k} adds {k} to red's byte" for k in slipped)
               + ": bt601_gray(rgb[3 * i], rgb[3 * i + 1], "
               "rgb[3 * i + 2])")
        return


HALVES = ("0.5f", "0.5", "0.5F", ".5f", ".5")


def half_outside_the_cast(kernels):
    """The text of a statement, in the kernel's body or a function it calls, that adds 0.5 after
    a closing parenthesis, (unsigned char)(...) + 0.5f: the cast truncates first and the half
    added to the truncated value is dropped again on return; None where there is none (or the
    source cannot be read)."""
    from helpers.exercises.microscope import kernel_words
    from helpers.sim.compile.kernel_text import Unreadable, closing

    text = kernel_words(kernels)
    if text is None:
        return None
    source, tokens, words, body, end = text
    called = {words[k] for k in range(body, end) if words[k + 1] == "(" and words[k].isidentifier()}
    spans = [(body, end)]
    for k in range(1, len(words) - 1):
        if words[k] in called and words[k + 1] == "(" and "__device__" in words[max(0, k - 4):k]:
            try:
                opened = words.index("{", closing(tokens, k + 1))
                spans.append((opened, closing(tokens, opened)))
            except (Unreadable, ValueError, IndexError):
                continue
    for first, last in spans:
        for j in range(first + 2, last):
            if words[j] in HALVES and words[j - 1] == "+" and words[j - 2] == ")":
                start = max(k for k in range(first, j) if words[k] in (";", "{", "}")) + 1
                stop = next((k for k in range(j, last) if words[k] == ";"), last - 1)
                return " ".join(source[tokens[start].start:tokens[stop].end].split())
    return None


def _byte(k):
    return "rgb[3 * i]" if k == 0 else f"rgb[3 * i + {k}]" if k > 0 else f"rgb[3 * i - {-k}]"


def byte_read_twice(got, rgb, wrong, grey):
    """One channel given another's byte (bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 1])):
    a byte counted twice and one never (the model, ``grey`` of the bytes so taken, within a level
    as a GPU's fused multiply-adds may land; the permutations are the swaps' models)."""
    names = ("red", "green", "blue")
    for taken in ((a, b, c) for a in range(3) for b in range(3) for c in range(3)):
        if len(set(taken)) == 3 or not (np.abs(got.astype(int) - grey(rgb[..., taken])) <= 1).all():
            continue
        at = int(wrong[0])
        pixel = tuple(int(v) for v in rgb.reshape(-1, 3)[at])
        said = " and ".join(f"{names[k]} was given {names[j]}'s byte, {_byte(j)}, where {_byte(k)} "
                            "belongs" for k, j in enumerate(taken) if j != k)
        never = " and ".join(names[k] for k in range(3) if k not in taken)
        yield (f"{wrong.size} of {got.size} grey values are wrong: in each, {said} (in "
               f"bt601_gray's call or its sum), so {never}'s byte never counted (pixel "
               f"{at}: rgb = {pixel}, grey {int(got.ravel()[at])}, expected "
               f"{int(grey(rgb).ravel()[at])})", "pass each pixel's red, green, blue bytes once "
               "each, in that order: bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]), "
               "and weigh r, g, b in bt601_gray: 0.299f * r + 0.587f * g + 0.114f * b")
        return


WEIGHTS = (0.299, 0.587, 0.114)


def one_weight_off(got, rgb, wrong, grey):
    """One of bt601_gray's weights another number (0.144f * b for 0.114f * b, say), the other
    two right: that weight fitted to the grey values by least squares, then the number of three
    places (as the stub writes them) within 0.009 of it whose model (``grey`` with it) gives the
    most grey values exactly, checked on every pixel within a level, as a GPU's fused
    multiply-adds may land."""
    names, colours = ("red", "green", "blue"), rgb.reshape(-1, 3).astype(np.float64)
    values = got.ravel().astype(np.float64)
    for k in range(3):
        rest = values - sum(WEIGHTS[j] * colours[:, j] for j in range(3) if j != k)
        if not colours[:, k].any():
            continue
        fitted = float(rest @ colours[:, k] / (colours[:, k] @ colours[:, k]))
        models = {w: grey(rgb, tuple(w if j == k else WEIGHTS[j] for j in range(3))).astype(int)
                  for w in {round(fitted + d / 1000, 3) for d in range(-9, 10)}}
        weight = max(models, key=lambda w: int((models[w] == got).sum()))  # the nearest
        if weight != WEIGHTS[k] and (np.abs(got.astype(int) - models[weight]) <= 1).all():
            at = int(wrong[0])
            pixel = tuple(int(v) for v in colours[at])
            term = (f"bt601_gray's {names[k]} weight is {weight:g}f * {names[k][0]}" if weight
                    else f"bt601_gray's sum lacks {names[k]}'s term")
            yield (f"{wrong.size} of {got.size} grey values are wrong, each the grey of its "
                   f"pixel with {names[k]} weighed {weight:g} where {WEIGHTS[k]} belongs: "
                   f"{term} (pixel {at}: "
                   f"rgb = {pixel}, grey {int(got.ravel()[at])}, expected "
                   f"{int(grey(rgb).ravel()[at])})", "bt601_gray weighs red 0.299, green 0.587 "
                   "and blue 0.114: 0.299f * r + 0.587f * g + 0.114f * b")
            return


def pixel_stride_left_out(got, rgb, wrong, grey):
    """The read without the 3 bytes a pixel, rgb[i], rgb[i + 1], rgb[i + 2]: pixel i the grey of
    bytes i to i + 2 of the flat rgb (the model, ``grey`` of those bytes, within a level)."""
    flat = rgb.reshape(-1).astype(np.int64)
    n = got.size
    if flat.size < n + 2 or n < 2:
        return
    taken = np.stack([flat[k:k + n] for k in range(3)], axis=-1)
    if not (np.abs(got.astype(int).ravel() - grey(taken).ravel()) <= 1).all():
        return
    at = int(wrong[0])
    yield (f"{wrong.size} of {n} grey values are wrong, each the grey of bytes i, i + 1 and i + 2 "
           f"of rgb: a pixel is 3 bytes, and the 3 * is missing from the read, so pixel {at} "
           f"read rgb[{at}], rgb[{at + 1}], rgb[{at + 2}], where its bytes are rgb[{3 * at}], "
           f"rgb[{3 * at + 1}], rgb[{3 * at + 2}] (grey {int(got.ravel()[at])}, expected "
           f"{int(grey(rgb).ravel()[at])}); only pixel 0 reads its own",
           "pixel i starts at byte 3 * i: bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2])")


def byte_of_a_neighbour(got, rgb, wrong, grey):
    """One channel read at another pixel's byte (rgb[3 * i + 3], the next pixel's red, for blue's
    rgb[3 * i + 2]: the channels counted from 1): the model, ``grey`` of the bytes so taken,
    within a level, on the pixels whose stray byte lies inside rgb."""
    names, flat, n = ("red", "green", "blue"), rgb.reshape(-1).astype(np.int64), got.size
    base = 3 * np.arange(n)
    for k, offset in ((k, o) for k in range(3) for o in range(-3, 6) if not 0 <= o < 3):
        at = base + offset
        inside = (at >= 0) & (at < flat.size)
        taken = np.stack([flat[np.clip(base + j if j != k else at, 0, flat.size - 1)]
                          for j in range(3)], axis=-1)
        close = np.abs(got.astype(int).ravel() - grey(taken).ravel()) <= 1
        if inside.sum() < 2 or not close[inside].all():
            continue
        p = int(wrong[0])
        other = ("the next" if offset > 2 else "the previous") + f" pixel's {names[offset % 3]}"
        yield (f"{wrong.size} of {n} grey values are wrong: in each, {names[k]} was read from "
               f"{_byte(offset)}, {other}, where {_byte(k)} belongs (pixel {p}: {names[k]} read "
               f"rgb[{3 * p + offset}] = {flat[3 * p + offset] if inside[p] else '?'}, its own "
               f"is rgb[{3 * p + k}] = {flat[3 * p + k]}; grey {int(got.ravel()[p])}, expected "
               f"{int(grey(rgb).ravel()[p])})", "a pixel's bytes are rgb[3 * i], rgb[3 * i + "
               "1], rgb[3 * i + 2], counted from 0: bt601_gray(rgb[3 * i], rgb[3 * i + 1], "
               "rgb[3 * i + 2])")
        return


AS_CHAR = ("the channels reached bt601_gray's sum as char, which holds -128 to 127, so levels 128 "
           "to 255 turned into -128 to -1: bt601_gray's parameters declared char (char r, char g, "
           "char b), or a char on the way from rgb")
CHAR_HINT = ("declare bt601_gray's parameters unsigned, as the stub does: unsigned char "
             "bt601_gray(unsigned int r, unsigned int g, unsigned int b), and keep each channel "
             "unsigned from rgb to the sum (a char is signed)")


def signed_sums(rgb):
    """bt601_gray's sums (with its + 0.5f, in float32) of the channels taken as signed chars."""
    r, g, b = (rgb[..., c].view(np.int8).astype(np.float32) for c in range(3))
    return (np.float32(0.299) * r + np.float32(0.587) * g + np.float32(0.114) * b
            + np.float32(0.5))


def signed_grey(rgb):
    """The grey of channels taken as signed chars, as a GPU gives it: a sum below 0 converts to
    unsigned char as 0 (its conversion saturates)."""
    return np.clip(signed_sums(rgb), 0, 255).astype(np.uint8)


def channels_as_char(got, rgb, wrong, grey):
    """A GPU's output of channels taken as char (the model ``signed_grey``, within a level as
    its fused multiply-adds may land), on an image with levels of 128 and more (``grey``: the
    right grey values' model)."""
    model = signed_grey(rgb).astype(int)
    if not wrong.size or not (rgb >= 128).any() or \
            not (np.abs(got.astype(int) - model) <= 1).all():
        return
    at = int(wrong[0])
    pixel = tuple(int(v) for v in rgb.reshape(-1, 3)[at])
    yield (f"{wrong.size} of {got.size} grey values are wrong, each the grey of its pixel with its "
           f"levels of 128 and more taken as negative (pixel {at}: rgb = {pixel}, grey "
           f"{int(got.ravel()[at])}, expected {int(grey(rgb).ravel()[at])}; its sum came out "
           f"{float(signed_sums(rgb).ravel()[at]):.3f}, and a sum below 0 converts to 0): "
           f"{AS_CHAR}", CHAR_HINT)


def char_conversion(failure):
    """A conversion that stopped the kernel on the simulator (its fields: the value, the type,
    the thread) at the sum that thread t's pixel t gives with its channels taken as char."""
    err, launch = failure.error, failure.launch
    value, rgb = getattr(err, "value", None), getattr(launch, "model", None)
    if failure.kind != "conversion" or value is None or rgb is None or \
            not getattr(err, "thread", None) or not getattr(err, "block", None):
        return
    t = err.block[0] * launch.block[0] + err.thread[0]
    pixels = rgb.reshape(-1, 3)
    if t >= len(pixels) or pixels[t].max() < 128 or \
            abs(float(signed_sums(rgb).ravel()[t]) - value) > 1e-2:
        return
    width = rgb.shape[1]
    yield (f"pixel {t} (x = {t % width}, y = {t // width}) has channels "
           f"{', '.join(map(str, pixels[t]))}, and its grey sum (with the + 0.5f) came out "
           f"{value:g}, which levels 0 to 255 never give: {AS_CHAR} (the conversion of "
           f"{value:g} to {err.to_type} stopped the kernel on the simulator; a GPU gives 0)",
           CHAR_HINT)


def planes_read(got, rgb, wrong, grey):
    """The channels read as three planes of n = width * height bytes (NumPy's (3, height, width)
    habit), rgb[i], rgb[n + i], rgb[2 * n + i], where rgb is interleaved: pixel i the grey of
    those bytes of the flat rgb (the model, ``grey`` of them, within a level)."""
    flat, n = rgb.reshape(-1).astype(np.int64), got.size
    taken = np.stack([flat[k * n:(k + 1) * n] for k in range(3)], axis=-1)
    if n < 2 or not (np.abs(got.astype(int).ravel() - grey(taken).ravel()) <= 1).all():
        return
    at = int(wrong[0])
    yield (f"{wrong.size} of {n} grey values are wrong, each the grey of bytes i, n + i and "
           f"2 * n + i of rgb (n = width * height = {n}): the channels were read as three planes "
           "of width * height bytes each, reds, then greens, then blues (NumPy's (3, height, "
           f"width) layout), so pixel {at} read rgb[{at}], rgb[{n + at}], rgb[{2 * n + at}], "
           f"where its bytes are rgb[{3 * at}], rgb[{3 * at + 1}], rgb[{3 * at + 2}] (grey "
           f"{int(got.ravel()[at])}, expected {int(grey(rgb).ravel()[at])})", "rgb is "
           "interleaved, a pixel's 3 bytes together: bt601_gray(rgb[3 * i], rgb[3 * i + 1], "
           "rgb[3 * i + 2])")


def read_before_the_guard(case, kernels):
    """Every pixel right, but rgb read above the bounds guard in the kernel's text (its simulated
    twin's source): the spare threads of the last block read past rgb's end (``sepia_guard``)."""
    import functools
    from types import SimpleNamespace

    from helpers.exercises.microscope import kernel_words, source_line
    from helpers.exercises.sepia_guard import Layout, read_before_the_guard as above

    if (text := kernel_words(kernels)) is None:
        return
    (source, tokens, _, _, end), (width, height, block) = text, case[:3]
    grid = SimpleNamespace(threads=(-(-width * height // block) * block, 1), width=width,
                           height=height)
    yield from above(grid, source[:tokens[end].end], kernels.simulated.name,
                     functools.partial(source_line, source),
                     launch="the grid, rounded up to whole blocks, has {} threads",
                     layout=Layout(3, "bytes", "t", "", "gray", "t >= width * height"))
