"""The sepia variants for tests/exercises/test_sepia.py whose sums are computed wrongly in C's own
way: weights written as fractions of ints, an else that C pairs with another if than its
indentation shows (the replacements in the solution, the pieces of the expected verdict), as
its WRONG table holds."""

RED_CLAMP = "    out[3 * i]     = (unsigned char)fminf(r2 + 0.5f, 255.0f);   // round, and clamp to 255\n"

C_WAYS = {
    # blind audit AR (was 'the red output is 0.000 r + 0.000 g + 0.000 b, where the matrix has
    # ... Hint: each output channel comes from the input's r, g and b: ...', the layout restated)
    "weights_as_int_fractions": ([("0.393f * r + 0.769f * g + 0.189f * b",
                                   "393 / 1000 * r + 769 / 1000 * g + 189 / 1000 * b")],
                                 ("the red output is 0.000 r + 0.000 g + 0.000 b", "its weights "
                                  "of r, g and b came out 0", "393 / 1000 divides an int by an "
                                  "int", "Hint: write each weight as a float")),
    # blind audit AR (was '219 of 5883 values are wrong (the first is x = 1, y = 0, red: got 254,
    # expected 255) ... Hint: pixel i's red, green and blue are at 3*i, ...'): the clamp as nested
    # ifs, the else indented for the outer if, which C pairs with the inner one
    "dangling_else_in_the_clamp": ([(RED_CLAMP, "    unsigned char red;\n"
                                     "    if (r2 <= 255.0f)\n        if (r2 >= 0.0f)\n"
                                     "            red = (unsigned char)(r2 + 0.5f);\n"
                                     "    else\n        red = 255;\n    out[3 * i]     = red;\n")],
                                   ("red (declared at line", "is read with no value on some "
                                    "paths: the else at line", "belongs to the if at line",
                                    "if (r2 >= 0.0f), the nearest", "values are wrong, all where "
                                    "the sum passes 255", "Hint: C pairs an else with the "
                                    "nearest if")),
}
