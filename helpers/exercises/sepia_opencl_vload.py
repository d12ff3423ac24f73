"""Vector loads and stores of OpenCL's sepia port (``helpers.exercises.sepia_opencl``) whose offset
counts bytes: vload3(3 * i, rgb) reads rgb[3 * (3 * i)] to rgb[3 * (3 * i) + 2], pixel 3 * i, since
vloadn's offset counts n-element vectors (vload3(i, rgb) is rgb[3 * i] to rgb[3 * i + 2]), and
vstore3(v, 3 * i, out) writes pixel 3 * i alike."""

from __future__ import annotations

import re

from helpers.exercises import sepia
from helpers.exercises.opencl_kernel import code_line
from helpers.exercises.sepia_models import near, reference


LOAD = r"\bvload3\s*\(\s*3\s*\*\s*([^,]+?)\s*,\s*(\w+)\s*\)"
STORE = r"\bvstore3\s*\([^;]*?,\s*3\s*\*\s*([^,;]+?)\s*,\s*(\w+)\s*\)\s*;"


def vector_offsets_in_bytes(rgb, out, code):
    """Every third pixel right, the others never written and bytes past out written (the pixel
    3 * i read and stored by the work-item of pixel i, ``sepia._tripled``), and a vstore3 whose
    offset is 3 * (an index) in the code: the vector store, and the vector load where the code
    has one, took pixel 3 * i (named as the code writes them)."""
    store = re.search(STORE, code)
    if not store or next(sepia._tripled(rgb, out, "work-item"), None) is None:
        return
    load = re.search(LOAD, code)
    index, target = " ".join(store.group(1).split()), store.group(2)
    calls = ([f"{' '.join(load.group().split())} (line {code_line(code, load.start())})"]
             if load else []) + [f"vstore3(..., 3 * {index}, {target}) (line "
                                 f"{code_line(code, store.start())})"]
    both = len(calls) > 1
    yield (f"only every third pixel (0, 3, 6, ...) was written, each right, and bytes past the end "
           f"of {target} too: {' and '.join(calls)} take{'' if both else 's'} pixel 3 * {index}, "
           f"bytes 9 * {index} to 9 * {index} + 2: {'their' if both else 'its'} offset counts "
           "3-byte vectors, not bytes, so the work-items of the image's last two thirds went past "
           "its end", "pass the pixel's index: "
           + (f"vload3({index}, {load.group(2)}) reads {load.group(2)}[3 * {index}] to "
              f"{load.group(2)}[3 * {index} + 2], and " if load else "")
           + f"vstore3(v, {index}, {target}) writes {target}[3 * {index}] to {target}[3 * {index} "
           f"+ 2], pixel {index}'s three bytes (the vectors stay; only their offset counts vectors)")


def vload_offset_in_bytes(rgb, out, code):
    """Every pixel written, each pixel i whose pixel 3 * i lies inside the image holding pixel
    3 * i's sepia (the others read past the end of rgb), and a vload3 whose offset is 3 * (an
    index) in the code: the vector load took pixel 3 * i (named as the code writes it)."""
    pixels, got = rgb.reshape(-1, 3), out.got.reshape(-1, 3)
    inside = -(-len(pixels) // 3)   # the pixels i with 3 * i inside the image
    if out.unwritten.any() or not near(got[:inside], reference(pixels[::3])) or \
            near(got[:inside], reference(pixels[:inside])):
        return
    load = re.search(LOAD, code)
    if not load:
        return
    index, source = " ".join(load.group(1).split()), load.group(2)
    call = " ".join(load.group().split())
    yield (f"{call} (line {code_line(code, load.start())}) reads pixel 3 * {index}, bytes "
           f"9 * {index} to 9 * {index} + 2: vload3's offset counts 3-byte vectors, not bytes, "
           f"so pixel i holds pixel 3 * i's sepia (pixels 0 to {inside - 1}), and the others read "
           f"past the end of {source}", f"vload3({index}, {source}) reads {source}[3 * {index}] "
           f"to {source}[3 * {index} + 2], pixel {index}'s three bytes (the vector load stays; "
           "only its offset counts vectors)")
