"""The guard's mistakes of scale_slices (helpers.exercises.scale_slices) that its z test or its
missing sides make: z compared with the threads launched in z or with threadIdx.z, which no
thread reaches, and the tests of x or y left out."""

from __future__ import annotations

import numpy as np

from helpers.exercises.matrix_index_models import if_tests


def z_against_the_launch(case, grid, hit, kernels):
    """Every slice of the grid written, past the end too (a launch with no z guard), where an if
    of the kernel's body tests z against gridDim (``if_tests``), not nz: the threads launched in
    z, which no thread reaches. Yields (problem, hint)."""
    nx, ny, nz, block = case
    depth = grid[2] * block[2]
    if depth == nz or hit != set(range(depth * ny * nx)):
        return
    for _, line, tested in if_tests(kernels):
        for test in _top_level_tests(tested):
            if _tests_z(test) and "gridDim" in test and "nz" not in test:
                said = " ".join(test).replace(" . ", ".").replace("( ", "(").replace(" )", ")")
                past = _written_past(nz, depth)
                yield (f"out was written past its end (out[{nz * ny * nx}]): z's test in the "
                       f"guard, {said} at line {line}, compares z with the threads launched in "
                       f"z, {depth}, not with the volume's depth, nz = {nz}: no thread's z "
                       f"reaches {depth}, so it sends no thread away, and the threads with {past}, "
                       "past the end of out", "compare z with the volume's depth, nz, not with "
                       "the launch's: if (x >= nx || y >= ny || z >= nz) return;")
                return


def _written_past(nz, depth):
    """Which threads wrote which slices past the volume's nz, in a launch ``depth`` threads deep."""
    return f"z = {nz} wrote slice {nz}" if depth == nz + 1 else \
        f"z = {nz} to {depth - 1} wrote slices {nz} to {depth - 1}"


def _top_level_tests(words):
    """The tests of a condition's words joined at its top level with || or &&, each a list of
    words."""
    tests, depth, test = [], 0, []
    for word in words:
        depth += (word == "(") - (word == ")")
        if depth == 0 and word in ("||", "&&"):
            tests.append(test)
            test = []
        else:
            test.append(word)
    return [*tests, test]


def _tests_z(test) -> bool:
    """Whether a test's words read the variable z (not a field .z)."""
    return any(w == "z" and (j == 0 or test[j - 1] != ".") for j, w in enumerate(test))


THREAD_Z_PROBE = (5, 3, 2, (4, 2, 4))
"""A volume of 2 slices in one block 4 deep: there z is threadIdx.z, and a z guard that compares
threadIdx.z with nz sends threads 2 and 3 away as z >= nz does."""


def guard_on_thread_z(case, grid, hit, probe_hit):
    """Every slice of the grid written, past the end too, where ``THREAD_Z_PROBE``
    (``probe_hit()``, the elements it wrote there) is written right: z's guard holds where z is
    threadIdx.z, in one block, and not where blockIdx.z adds whole blocks: it compares
    threadIdx.z, below blockDim.z <= nz, with nz. Yields (problem, hint)."""
    nx, ny, nz, block = case
    depth = grid[2] * block[2]
    if block[2] > nz or depth == nz or hit != set(range(depth * ny * nx)):
        return
    px, py, pz = THREAD_Z_PROBE[:3]
    if probe_hit() != set(range(pz * py * px)):
        return
    past = _written_past(nz, depth)
    yield (f"out was written past its end (out[{nz * ny * nx}]): z's guard compares threadIdx.z, "
           f"the thread's place in its block (0 to blockDim.z - 1 = {block[2] - 1}), with nz = "
           f"{nz}, which it never reaches, so it sends no thread away: the threads with {past}, "
           f"past the end of out (a volume of {pz} slices in one block "
           f"{THREAD_Z_PROBE[3][2]} deep, where z is threadIdx.z, was written right)",
           "compare the thread's z, blockIdx.z * blockDim.z + threadIdx.z, with nz: "
           "if (x >= nx || y >= ny || z >= nz) return;")


def guard_missing_sides(case, grid, hit, first):
    """A guard testing z but not x, y or both (if (z >= nz) return;): ``hit`` what it let write."""
    t = np.indices([g * b for g, b in zip(grid, case[3])][::-1])[::-1]  # x, y, z
    index, ends = (t[2] * case[1] + t[1]) * case[0] + t[0], [int(k.max()) for k in t]
    for tested, kept in (("z", "z's"), ("yz", "those of y and z"), ("xz", "those of x and z")):
        if hit != set(index[np.logical_and.reduce([t["xyz".index(a)] < case["xyz".index(a)]
                                                    for a in tested])].tolist()):
            continue
        names = [a for a in "xy" if a not in tested]
        outside = " or ".join(f"{a} >= n{a} ({a} = {' to '.join(map(str, sorted({case[k], ends[k]})))})"
                              for k, a in enumerate("xy") if a in names)
        yield (f"out was written past its end (out[{first}]): the guard tests "
               f"{' and '.join(tested)} alone, not {' or '.join(names)}: the threads with "
               f"{outside} went on and stored, into the next row or slice and past the end",
               f"keep the test{'s' * (len(names) > 1)} of {' and '.join(names)} beside {kept}, "
               "all joined with ||: if (x >= nx || y >= ny || z >= nz) return;")
