"""The matrix_index exercise's operands in the wrong roles: a kernel that multiplies by the row's
offset and adds the column's scale (or scales the offset and adds a), as fmaf's operands in the
wrong order give (fmaf(x, y, z) is x * y + z), or a product and a sum written with the vectors
swapped."""

from __future__ import annotations

from helpers.exercises.matrix_index_models import _sign

FMA = ("fmaf", "fma", "__fmaf_rn")
RIGHT = "out[i] = a[i] * col_scale[col] + row_offset[row]"


def operands_swapped(a, scale, offset, kernels):
    """The results of the operands' wrong roles, (model, problem, hint) with out[0][0]'s values
    (``a``: the rows x cols matrix, ``scale``: col_scale, ``offset``: row_offset); where the
    kernel's text calls fmaf, the problem says what fmaf computes and the hint writes its call."""
    from helpers.exercises.microscope import body_words

    a0, o, s = a[0, 0], offset[0], scale[0]
    fma = next((word for word in body_words(kernels) if word in FMA), None)
    said = (f"; {fma}(x, y, z) computes x * y + z: its first two are multiplied, its third "
            "added") if fma else ""
    hint = (f"the multiplied two come first and the added one last: {fma}(a[i], col_scale[col], "
            f"row_offset[row]), which is a[i] * col_scale[col] + row_offset[row]" if fma else
            f"multiply by the column's scale, add the row's offset: {RIGHT}")
    return [(a * offset[:, None] + scale, "the result is a[i] * row_offset[row] + "
             f"col_scale[col] (out[0][0] = {a0 * o + s:g} is a[0][0] * row_offset[0] + "
             f"col_scale[0] = {a0:g} * {o:g} {_sign(s)}): the row's offset multiplied and the "
             "column's scale added, their roles swapped" + said, hint),
            (scale * offset[:, None] + a, "the result is col_scale[col] * row_offset[row] + "
             f"a[i] (out[0][0] = {s * o + a0:g} is col_scale[0] * row_offset[0] + a[0][0] = "
             f"{s:g} * {o:g} {_sign(a0)}): the column's scale multiplied by the row's offset "
             "and a added, not scaled" + said, hint)]
