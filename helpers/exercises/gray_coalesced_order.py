"""Why a right gray_coalesced kernel is not FAST (``helpers.exercises.gray_coalesced``), where its
trace shows it: x and y split along the row, x = t % width and y = t / width, as asked, but the
pixel's index written column by column, i = x * height + y. Every pixel gets a thread of its own,
so the image is right, but neighbouring threads' pixels lie height apart in memory."""

from __future__ import annotations

from helpers.exercises.microscope import accesses_of


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
