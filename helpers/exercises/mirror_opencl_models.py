"""The models of ``helpers.exercises.mirror_opencl``: which pixels a kernel whose x or y is built
from the wrong work-group numbers writes (``group_id``: the work-group's index alone;
``groups_apart``: its index times the number of work-groups, get_num_groups, where the
work-group's size belongs), each named where the pixels written are exactly those, and right;
and ``fraction_dropped``: each pixel cut to a whole number on its way from in to out."""

from __future__ import annotations

import re

import numpy as np

from helpers.exercises.opencl_kernel import code_line


def group_id(out, case, image):
    """Only the first rows (columns), one per work-group of the range down (across), written and
    right: y = get_group_id(1) (x = get_group_id(0)), the work-group's index for the work-item's."""
    y, x = np.indices(out.unwritten.shape)
    for side, dim, name, index, groups, local in (("y", 1, "row", y, case.grid[1], case.block[1]),
                                                  ("x", 0, "column", x, case.grid[0], case.block[0])):
        done = index < groups
        if (groups != local and np.array_equal(~out.unwritten, done)
                and np.array_equal(out.got[done], image[:, ::-1][done])):
            yield (f"only {name}s 0 to {groups - 1} were written (right): {side} took the "
                   f"work-group's index, get_group_id({dim}), which runs from 0 to {groups - 1} "
                   f"over the range's {groups} work-groups, not the work-item's {name}",
                   f"{side} = get_global_id({dim}) (the {name}), which is get_group_id({dim}) * "
                   f"get_local_size({dim}) + get_local_id({dim}): the group's index times its "
                   "size, plus the place inside it")


def groups_apart(out, case, image, code):
    """Only the rows (columns) get_group_id(d) * get_num_groups(d) + get_local_id(d) reaches
    written, and right: y (x) built CUDA-style with the number of work-groups (CUDA's gridDim)
    where the work-group's size, get_local_size (blockDim), belongs. Named as the code writes
    the line, where it shows it."""
    y, x = np.indices(out.unwritten.shape)
    for side, dim, name, index, length, groups, local in (
            ("y", 1, "row", y, case.height, case.grid[1], case.block[1]),
            ("x", 0, "column", x, case.width, case.grid[0], case.block[0])):
        done = np.isin(index, np.arange(groups)[:, None] * groups + np.arange(local))
        if groups == local or done.all() or not np.array_equal(~out.unwritten, done) or \
                not np.array_equal(out.got[done], image[:, ::-1][done]):
            continue
        kept = np.unique(index[done])
        which, rest = ((f"{name}s 0 to {kept[-1]}", f"{name}s {kept[-1] + 1} to {length - 1}")
                       if kept.size == kept[-1] + 1 else
                       (f"{kept.size} of the {length} {name}s", f"the other {name}s"))
        m = re.search(rf"\b{side}\s*=(?!=)([^;]*\bget_num_groups\s*\(\s*{dim}\s*\)[^;]*);", code)
        said = (f"{side} = {' '.join(m[1].split())} (line {code_line(code, m.start())})" if m
                else f"{side} = get_group_id({dim}) * get_num_groups({dim}) + get_local_id({dim})")
        how = ("the work-groups' " + name + "s overlap" if groups < local else
               f"{groups - local} {name}s are skipped between work-groups")
        yield (f"only {which} were written (right): {said} starts work-group g's {name}s at g * "
               f"{groups} (get_num_groups({dim}), how many work-groups the range has, CUDA's "
               f"gridDim) instead of g * {local} (get_local_size({dim}), the work-group's size, "
               f"CUDA's blockDim), so {how} and {rest} got no work-item", f"{side} = get_group_id({dim}) * get_local_size({dim}) + "
               f"get_local_id({dim}), or simply {side} = get_global_id({dim}) (the {name})")


SCALE = 1000
"""The image's values lie in [0, 1), where every pixel cut to a whole number is 0, as a kernel
that stores 0 gives: a second launch on the image times SCALE tells the two apart."""


def fraction_dropped(got, want, relaunch):
    """Every pixel its mirror cut toward zero to a whole number, here and on the image times
    SCALE (``relaunch(SCALE)``: (got, want) of that launch, or None where it failed): the pixel
    went through an int (an int variable, or a cast) between in and out."""
    if not np.array_equal(got, np.trunc(want)):
        return
    again = relaunch(SCALE)
    if again is None or not np.count_nonzero(np.trunc(again[1])) or \
            not np.array_equal(again[0], np.trunc(again[1])):
        return
    fy, fx = np.argwhere(got != want)[0]
    yield (f"every pixel came out cut to a whole number, toward zero, its fraction lost (x = "
           f"{fx}, y = {fy}: got {got[fy, fx]:g}, expected {want[fy, fx]:.6g}; on the image times "
           f"{SCALE}: got {again[0][fy, fx]:g}, expected {again[1][fy, fx]:.6g}): the pixel went "
           "through an int on its way from in to out (an int variable, or a cast to int)",
           "keep the pixel a float: float v = in[y * width + (width - 1 - x)]; (or store "
           "in[y * width + (width - 1 - x)] straight into out[y * width + x])")
