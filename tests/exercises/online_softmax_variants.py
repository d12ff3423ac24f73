"""The online_softmax variants for tests/exercises/test_online_softmax.py whose merge rescales
each sum by the other's factor, or whose column loop steps by less than the warp's 32 lanes
(name, the solution with the mistake in it, the words that the NOT YET line must contain), as
its WRONG list holds."""

from kernel_sources import solution, variant

KERNEL = solution("online_softmax.cu")

MERGES_AND_STEPS = [
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
]
