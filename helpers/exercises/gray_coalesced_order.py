"""Why a right gray_coalesced kernel is not FAST (``helpers.exercises.gray_coalesced``), where its
trace shows it: x and y split along the row, x = t % width and y = t / width, as asked, but the
pixel's index written column by column, i = x * height + y. Every pixel gets a thread of its own,
so the image is right, but neighbouring threads' pixels lie height apart in memory. Also the
splits of t into (x, y) that send pixels past the image (``SPLITS``), and the right split
indexed x * width + y, the column times the row's length (``swapped_index``)."""

from __future__ import annotations

import numpy as np

from helpers.exercises.microscope import accesses_of, kernel_words


def swapped_index(kernels):
    """(the statement, x's name, y's name) where the kernel's text splits t along the row,
    x = t % width and y = t / width (as the learner names them, unless x is called y or row, or
    y x or col: then the split is the slip, ``SPLITS``), but indexes pixel (x, y) as x * width +
    y (or width * x + y, y + x * width, y + width * x): the column times the row's length; None
    otherwise, or where the text cannot be read."""
    if (text := kernel_words(kernels)) is None:
        return None
    source, tokens, words, body, end = text
    split = {words[k + 3]: words[k] for k in range(body + 1, end - 5) if words[k + 1] == "="
             and words[k + 2].isidentifier() and words[k + 3] in ("%", "/")
             and words[k + 4] == "width" and words[k + 5] in (";", ",")}
    x, y = split.get("%"), split.get("/")
    if not x or not y or x in ("y", "row") or y in ("x", "col", "column"):
        return None
    shapes = ([x, "*", "width", "+", y], ["width", "*", x, "+", y], [y, "+", x, "*", "width"],
              [y, "+", "width", "*", x])
    for j in range(body + 1, end - 4):
        if words[j:j + 5] in shapes:
            start = max(k for k in range(body, j) if words[k] in (";", "{", "}")) + 1
            stop = next((k for k in range(j, end) if words[k] == ";"), end - 1)
            return " ".join(source[tokens[start].start:tokens[stop].end].split()), x, y
    return None


def split_by_the_block(kernels):
    """(x's split, y's split) as the kernel's text writes them, where it splits a flat index by
    the block's size, x = t % blockDim.x and y = t / blockDim.x (as the learner names them), which
    make x threadIdx.x and y blockIdx.x; None otherwise, or where the text cannot be read."""
    if (text := kernel_words(kernels)) is None:
        return None
    source, tokens, words, body, end = text
    split = {words[k + 3]: " ".join(source[tokens[k].start:tokens[k + 6].end].split())
             for k in range(body + 1, end - 7) if words[k + 1] == "=" and
             words[k + 2].isidentifier() and words[k + 3] in ("%", "/") and
             words[k + 4:k + 7] == ["blockDim", ".", "x"] and words[k + 7] in (";", ",")}
    return (split["%"], split["/"]) if len(split) == 2 else None


def swapped_pixels(kernels, t, width, height):
    """(pixels, problem, hint) of the threads ``t`` (an array) of a kernel whose text indexes its
    right split x * width + y (``swapped_index``): their pixels i = x * width + y, the problem
    naming the first of them past the image; None otherwise, or where none is past it."""
    found = swapped_index(kernels)
    i = t % width * width + t // width
    past = np.flatnonzero(i >= width * height)
    if found is None or not past.size:
        return None
    (statement, xn, yn), first = found, t[past[0]]
    x, y = first % width, first // width
    return i, (f"its split is right ({xn} = t % width = {x}, {yn} = t / width = {y}), but "
               f"{statement} multiplies the column {xn} by the row's length, where the row {yn} "
               f"belongs: thread t = {first} took pixel i = {x} * {width} + {y} = {i[past[0]]}, "
               f"past the image's {width * height} pixels"), (
        f"pixel ({xn}, {yn}) of a row-major image is i = {yn} * width + {xn}: the row times the "
        "row's length, plus the column")


def index_by_columns(kernels, launch, width, height):
    """(why, hint) where every store into gray in a trace of ``launch`` (a ``width`` x ``height``
    image, a 1-D grid, on the simulator) went to i = x * height + y of its thread's x = t % width,
    y = t / width (t = blockIdx.x * blockDim.x + threadIdx.x); None otherwise."""
    block = launch.block[0]
    kept = accesses_of(kernels, launch, "the pixels stored", 4 * block * launch.grid[0])
    if kept is None:
        return None
    stores = kept[kept["write"] & (kept["array"] == "gray")]
    t = stores["block"].astype(int) * block + stores["thread"].astype(int)
    if len(stores) != width * height or (stores["index"] != t % width * height + t // width).any():
        return None
    return (f"x = t % width and y = t / width run along a row, but i = x * height + y lays the "
            f"image out column by column: neighbouring threads, x and x + 1, took pixels height = "
            f"{height} apart (thread 1 stored gray[{height}], thread 0 gray[0])",
            "keep x = t % width, y = t / width, and write the index row by row: pixel (x, y) of a "
            "row-major image is i = y * width + x, so that the next thread's pixel, x + 1, is the "
            "next in memory, i + 1")



def _rounded_row(t, width, height, block):
    """y = roundf((float)t / width): the row rounded to the nearest, as roundf does (halves up)."""
    return t % width, np.floor((t.astype(np.float32) / np.float32(width)).astype(float) + 0.5)


SPLITS = [  # (thread t's (x, y), what it got wrong, the hint), t < width * height
    (lambda t, width, height, block: (t % block, t // width),
     "x = threadIdx.x is the thread's place in its block, not its pixel's column",
     "x = t % width, y = t / width"),
    (_rounded_row, "y = t / width was rounded to the nearest row, so the right half of each row "
     "(t % width >= width / 2) went to the next row, the last row's past the end, and the right "
     "half of row 0 was never written", "y = t / width in integer division: / on two ints drops "
     "the fraction, which is the row (x = t % width, what is left over, the column)"),
    (lambda t, width, height, block: (t % width, -(-t // width)),
     "y = t / width was rounded up (as the grid's size is), so every pixel but those of column 0 "
     "went one row down, the last row's past the end, and row 0 past its first pixel was never "
     "written", "y = t / width in integer division, which rounds down: / on two ints drops the "
     "fraction, which is the row (x = t % width, what is left over, the column)"),
    (lambda t, width, height, block: (t // width, t % width),
     "x = t / width and y = t % width: / and % are swapped, so y runs along the row up to "
     "width - 1, past the last row (y = height - 1) where the image is wider than tall, and x "
     "counts rows", "x = t % width (what is left over, the column), y = t / width (the row): "
     "threadIdx.x then runs along a row"),
    (lambda t, width, height, block: (t - t // width, t // width),
     "x = t - y takes y pixels off t where y whole rows hold y * width: x came out t % width + "
     "y * (width - 1), past the row's last column (width - 1) from row 1 on (thread t = width + "
     "1 got y = 1, x = width), so pixel t landed y * (width - 1) pixels further on",
     "x is what is left of t after y whole rows of width pixels: x = t - y * width, which is "
     "t % width (y = t / width as it is)"),
    (lambda t, width, height, block: (t % width, t // height),
     "y = t / height: a row holds width pixels, so t / height counted rows of height pixels and "
     "ran past the last row (y = height - 1) where the image is wider than tall",
     "the row is t / width, not t / height: x = t % width, y = t / width"),
    (lambda t, width, height, block: (t % height, t // height),
     "x = t % height and y = t / height split t by the height, as if a row held height pixels: "
     "a row holds width, so x stays below height and y counts rows of height pixels, past the "
     "last row (y = height - 1) where the image is wider than tall",
     "split t by the row's length, width: x = t % width, y = t / width"),
]


def past_splits(case, past, missing, guard, kernels):
    """A split of t into (x, y) (``SPLITS``), or the right split indexed x * width + y
    (``swapped_pixels``), that sends pixels of threads t < width * height past the end: the
    pixels written past the end (those of the ``guard`` after it, which the launch can see) and
    those never written are those of its pixels i for every such t, so the guard on t is right
    and the split (or the index) wrong."""
    width, height, block = case[:3]
    t = np.arange(width * height)
    found = [((y * width + x).astype(int), problem, hint) for split, problem, hint in SPLITS
             for x, y in [split(t, width, height, block)]]
    swapped = swapped_pixels(kernels, t, width, height)
    for i, problem, hint in [swapped] + found if swapped else found:
        seen = i[(i >= t.size) & (i < t.size + guard)]
        if past.size and set(past.tolist()) == set(seen.tolist()) and \
                set(missing.tolist()) == set(range(t.size)) - set(i.tolist()):
            yield (f"threads with a pixel (t < width * height) wrote past the end of gray (as "
                   f"far as gray[{int(past.max())}]): {problem}", hint)


def column_by_a_mask(missing, past, width, height):
    """x = t & (width - 1) for t % width, y = t / width right: the pixels written are those of
    the mask's columns, the bits of width - 1 (equal to t % width only where width is a power of
    two), nothing past the end."""
    t = np.arange(width * height)
    x = t & (width - 1)
    if past.size or not width & (width - 1) or \
            set(missing.tolist()) != set(t.tolist()) - set((t // width * width + x).tolist()):
        return
    columns = sorted(set(x.tolist()))
    shown = ", ".join(map(str, columns[:6])) + (", ..." if len(columns) > 6 else "")
    yield (f"x = t & (width - 1) is t % width only where width is a power of two: with width = "
           f"{width}, t & {width - 1} keeps only the bits of {width - 1}, so x takes only "
           f"{len(columns)} columns (x = {shown}), several threads write each of them and the "
           f"other {width - len(columns)} columns get no thread ({missing.size} of {t.size} "
           "pixels never written)", "x = t % width, what is left of t after y = t / width whole "
           "rows: a mask stands for % only where the divisor is a power of two")
