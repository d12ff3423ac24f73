"""The escape_steps variants for tests/exercises/test_escape_steps.py that read the point c
wrongly in the loop's step: one of its parts left out, taken for the other, subtracted, or read at
another index (the replacements in the solution, how the verdict's problem starts), as its WRONG
table holds."""

POINT_READS = {
    "c_im_not_added": ([("z_im = 2.0f * z_re * z_im + c_im[i];", "z_im = 2.0f * z_re * z_im;")],
                       "every count is what the point's real part alone gives"),
    # blind audit TA1 (was '78.6% of the counts differ from NumPy's ... Hint: one step: ...')
    "c_re_not_added": ([("float re = z_re * z_re - z_im * z_im + c_re[i];",
                         "float re = z_re * z_re - z_im * z_im;")],
                       "every count is what the point's imaginary part alone gives, as if c_re "
                       "were 0: c_re[i] is not added to the new real part"),
    # blind audit TIA-escape_steps-1: c_im for c_re in the real step (was '72.1% of the counts
    # differ from NumPy's ... Hint: one step: ...', the whole step)
    "c_im_in_re": ([("z_im * z_im + c_re[i];", "z_im * z_im + c_im[i];")],
                   "the real step adds c_im[i] where c_re[i] belongs: float re = z_re*z_re - "
                   "z_im*z_im + c_im[i]"),
    # blind audit TYA-escape_steps-1: c_re for c_im in the imaginary step (was '61.1% of the
    # counts differ from NumPy's (the first: point 0, got 1, expected 100) ... Hint: one step:
    # ...', the whole step)
    "c_re_in_im": ([("z_im = 2.0f * z_re * z_im + c_im[i];", "z_im = 2.0f * z_re * z_im + c_re[i];")],
                   "the imaginary step adds c_re[i] where c_im[i] belongs: z_im = 2*z_re*z_im + "
                   "c_re[i], so each point follows c_re + i*c_re (point 0 counts 1 with c_re[i], "
                   "100 with c_im[i])"),
    # blind audit TVA-escape_steps-1: c_re subtracted in the real step (was '75.2% of the counts
    # differ from NumPy's (the first: point 0, got 2, expected 100) ... Hint: one step: ...')
    "c_re_subtracted": ([("z_im * z_im + c_re[i];", "z_im * z_im - c_re[i];")],
                        "the real step subtracts c_re[i] where it adds it: float re = z_re*z_re "
                        "- z_im*z_im - c_re[i], so each point follows -c_re + i*c_im (point 0 "
                        "counts 2 with - c_re[i], 100 with + c_re[i])"),
    "c_swapped": ([("+ c_re[i];", "+ C_IM;"), ("+ c_im[i];", "+ c_re[i];"), ("+ C_IM;", "+ c_im[i];")],
                  "c_re and c_im are swapped"),
    # blind audit AQ (was '77.6% of the counts differ from NumPy's (the first: point 257 ...
    # Hint: one step: ...'): the point read at threadIdx.x, so every block redoes block 0's
    "point_by_threadidx": ([("+ c_re[i];", "+ c_re[threadIdx.x];"),
                            ("+ c_im[i];", "+ c_im[threadIdx.x];")],
                           "points 256 on got the counts of the first block's points (point 257 "
                           "counts 2, as point 1 does, where NumPy's count is 100): c_re and c_im "
                           "were read at threadIdx.x"),
}
