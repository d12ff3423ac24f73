"""The sepia variants for tests/exercises/test_sepia.py whose sums are computed wrongly in C's own
way: weights written as fractions of ints (the replacements in the solution, the pieces of the
expected verdict), as its WRONG table holds."""

C_WAYS = {
    # blind audit AR (was 'the red output is 0.000 r + 0.000 g + 0.000 b, where the matrix has
    # ... Hint: each output channel comes from the input's r, g and b: ...', the layout restated)
    "weights_as_int_fractions": ([("0.393f * r + 0.769f * g + 0.189f * b",
                                   "393 / 1000 * r + 769 / 1000 * g + 189 / 1000 * b")],
                                 ("the red output is 0.000 r + 0.000 g + 0.000 b", "its weights "
                                  "of r, g and b came out 0", "393 / 1000 divides an int by an "
                                  "int", "Hint: write each weight as a float")),
}
