"""The online_softmax variants for tests/exercises/test_online_softmax.py whose merge rescales
each sum by the other's factor, leaves lane 0 its own max or its own pair, or whose column loop
steps by less than the warp's 32 lanes, or whose rescales are of base 2 (name, the solution with the mistake in it, the words that
the NOT YET line must contain), as its WRONG list holds."""

from kernel_sources import solution, variant

from helpers.backend import BACKEND

KERNEL = solution("online_softmax.cu")
LOOP = "        l = l * __expf(m - m_new) + __expf(v - m_new);\n"
LOOP_2 = "        l = l * exp2f(m - m_new) + exp2f((v - m_new) * 1.4426950408889634f);\n"
MERGE = ("        float m_new = fmaxf(m, m2);\n"
         "        l = (m == -INFINITY ? 0.0f : l * __expf(m - m_new))\n"
         "            + (m2 == -INFINITY ? 0.0f : l2 * __expf(m2 - m_new));\n")
SHFL_UP = [("for (int offset = 16; offset > 0; offset /= 2)",
            "for (int offset = 1; offset < 32; offset *= 2)")] + [
    (f"__shfl_xor_sync(0xffffffffu, {v}, offset)", f"__shfl_up_sync(0xffffffffu, {v}, offset)")
    for v in "ml"] + [(MERGE + "        m = m_new;\n", "        if (lane >= offset) {\n"
                       + MERGE.replace("        ", "            ") + "            m = m_new;\n"
                       "        }\n")]

MERGES_AND_STEPS = [
    ("max_not_merged", variant(KERNEL, (MERGE + "        m = m_new;\n", MERGE)),
     ["row_max is lane 0's own max", "m = fmaxf(m, m2)"]),
    # blind audit AU (was "row_max is lane 0's own max, not the row's ... Hint: merge the lanes'
    # maxes too: m = fmaxf(m, m2)", which the kernel does): the merge by __shfl_up_sync, a scan,
    # which hands lane 0 no other lane's pair (the simulator alone reads the kernel's text)
    ("merge_by_shfl_up", variant(KERNEL, *SHFL_UP),
     ["row_max and row_sum are lane 0's own pair, of its columns 0, 32, 64, ... alone",
      "Hint: merge with the butterfly", "float m2 = __shfl_xor_sync(0xffffffffu, m, offset)"]
     + (["the merge shuffles with __shfl_up_sync (line ", "which hands lane l the value of "
         "lane l - offset: lane 0 has no lane below it, so it never received another lane's pair"]
        if BACKEND == "simulator" else [])),
    # blind audit AS (was 'row_sum[0] = 6.95545, expected 4.63908 ... Hint: l is the sum of
    # exp(x - m) over the row, m the row's max', nothing on the merge): the two factors swapped
    ("merge_factors_swapped", variant(KERNEL, ("l * __expf(m - m_new))\n", "l * __expf(m2 - m_new))\n"),
                                      ("l2 * __expf(m2 - m_new))", "l2 * __expf(m - m_new))")),
     ["the two sums' factors were swapped", "the lane's own sum l was rescaled by exp(m2 - m_new)",
      "the partner's l2 by exp(m - m_new)", "Hint: each sum takes the factor of its own max: "
      "l = l * exp(m - m_new) + l2 * exp(m2 - m_new)"]),
    # blind audit AS (was 'row_sum[0] = 5.20101, expected 4.63908 ... Hint: l is the sum of
    # exp(x - m) over the row, m the row's max', the step not named): the column loop by 16
    ("loop_steps_by_16", variant(KERNEL, ("c < cols; c += 32)", "c < cols; c += 16)")),
     ["row_sum[0] = 5.20101, where its 200 columns give 4.63908",
      "each lane's column loop stepped by 16, not the warp's 32", "the lanes' columns overlap",
      "lane l + 16 starts at lane l's second column", "counted twice",
      "Hint: the warp's 32 lanes share the row, each every 32nd column: for (int c = lane; "
      "c < cols; c += 32)"]),
    # blind audit AW (was 'row_sum[0] = 7.34538, expected 4.63908 ... Hint: l is the sum of
    # exp(x - m) over the row', the base not named): exp2f's habit, the new term exp2f((v - m_new)
    # * log2(e)), but the rescales exp2f(m - m_new), in the loop and the merge, without the log2(e)
    ("rescales_of_base_2", variant(KERNEL, (LOOP, LOOP_2), ("__expf(m - m_new)", "exp2f(m - m_new)"),
                                   ("__expf(m2 - m_new)", "exp2f(m2 - m_new)")),
     ["row_sum is too large: the loop's and the merge's rescales were of base 2, 2^(m - m_new)",
      "exp2f(t) is 2^t", "Hint: write e^t as exp2f(t * log2(e)) in the rescales too"]),
    ("loop_rescale_of_base_2", variant(KERNEL, (LOOP, LOOP_2)),
     ["row_sum is too large: the loop's rescales were of base 2, 2^(m - m_new)",
      "l = l * __expf(m - m_new) + __expf(v - m_new) in the loop"]),
]
