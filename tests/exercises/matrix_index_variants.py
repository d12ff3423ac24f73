"""The matrix_index exercise's slips in the formula, for tests/exercises/test_matrix_index.py:
FORMULA_SLIPS, name: (replacements in the solution, pieces of the expected NOT YET line), the
kernels that index right but compute another formula from a, col_scale and row_offset."""

STORE = "out[i] = a[i] * col_scale[col] + row_offset[row];"

FORMULA_SLIPS = {
    # blind audit TLB-matrix_index-1 (was '3367 of 3367 elements are wrong (the first is
    # out[0][0] = -314.59, expected -52.4984) ... Hint: out[row * cols + col] = ...', the whole
    # formula): the offset added before the scale
    "offset_added_before_the_scale": ([(STORE,
                                        "out[i] = (a[i] + row_offset[row]) * col_scale[col];")],
                                      "the row's offset was added before the scale: out = (a + "
                                      "row_offset[row]) * col_scale[col] (out[0][0] = -314.59 is "
                                      "(a[0][0] + row_offset[0]) * col_scale[0] = (",
                                      "Hint: scale first, then add the row's offset: out[i] = "
                                      "a[i] * col_scale[col] + row_offset[row]"),
    # blind audit TNB-matrix_index-1 (was '3367 of 3367 elements are wrong (the first is
    # out[0][0] = -749.871, expected -52.4984) ... Hint: out[row * cols + col] = ...', the whole
    # formula): parentheses around the sum, the offset multiplied by a too
    "sum_in_parentheses": ([(STORE,
                             "out[i] = a[i] * (col_scale[col] + row_offset[row]);")],
                           "the sum was scaled: out = a * (col_scale[col] + row_offset[row]) "
                           "(out[0][0] = -749.871 is a[0][0] * (col_scale[0] + row_offset[0]) = ",
                           "so the row's offset was multiplied by a too",
                           "Hint: no parentheses around the sum: out[i] = a[i] * col_scale[col] "
                           "+ row_offset[row]"),
    # blind audit TYB-matrix_index-1 (was '3367 of 3367 elements are wrong (the first is
    # out[0][0] = -3124.41, expected -52.4984) ... Hint: out[row * cols + col] = ...', the whole
    # formula): the row's offset multiplied, not added
    "offset_multiplied": ([(STORE,
                            "out[i] = a[i] * col_scale[col] * row_offset[row];")],
                          "the row's offset was multiplied, not added: out = a * col_scale[col] * "
                          "row_offset[row] (out[0][0] = -3124.41 is a[0][0] * col_scale[0] * "
                          "row_offset[0] = ",
                          "Hint: add the row's offset after the scale: out[i] = a[i] * "
                          "col_scale[col] + row_offset[row]"),
    # blind audit AE (was '3363 of 3367 elements are wrong (the first is out[0][0] = -53.0022,
    # expected -52.4984) ... Hint: out[row * cols + col] = ...', the formula the kernel computes):
    # the product kept in an int before the offset is added, its fraction dropped
    "product_kept_in_an_int": ([(STORE,
                                 "int scaled = a[i] * col_scale[col];\n"
                                 "    out[i] = scaled + row_offset[row];")],
                               "a[i] * col_scale[col] was cut to a whole number (toward zero) "
                               "before row_offset[row] was added (out - row_offset[row] is a "
                               "whole number in every element): int scaled = a[i] * "
                               "col_scale[col]; at line ",
                               "Hint: keep the product a float: float scaled"),
    # blind audit AU (was '3367 of 3367 elements are wrong (the first is out[0][0] = -781.397,
    # expected -52.4984) ... Hint: out[row * cols + col] = ...', the operands' order not named):
    # fmaf read as first + second * third, so the offset is multiplied and the scale added
    "fmaf_read_as_first_plus_product": ([(STORE, "out[i] = fmaf(row_offset[row], a[i], col_scale[col]);")],
                                        "the result is a[i] * row_offset[row] + col_scale[col] "
                                        "(out[0][0] = -781.397 is a[0][0] * row_offset[0] + "
                                        "col_scale[0] = ", "the row's offset multiplied and the "
                                        "column's scale added",
                                        "fmaf(x, y, z) computes x * y + z",
                                        "Hint: the multiplied two come first and the added one "
                                        "last: fmaf(a[i], col_scale[col], row_offset[row])"),
    "scale_and_offset_swapped": ([(STORE, "out[i] = a[i] * row_offset[row] + col_scale[col];")],
                                 "the result is a[i] * row_offset[row] + col_scale[col]",
                                 "the row's offset multiplied and the column's scale added",
                                 "Hint: multiply by the column's scale, add the row's offset"),
    "fmaf_adding_a": ([(STORE, "out[i] = fmaf(col_scale[col], row_offset[row], a[i]);")],
                      "the result is col_scale[col] * row_offset[row] + a[i]",
                      "a added, not scaled; fmaf(x, y, z) computes x * y + z",
                      "Hint: the multiplied two come first"),
}
