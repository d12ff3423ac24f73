"""The online_softmax variants for tests/exercises/test_online_softmax.py whose merge rescales
each sum by the other's factor (name, the solution with the mistake in it, the words that the
NOT YET line must contain), as its WRONG list holds."""

from kernel_sources import solution, variant

KERNEL = solution("online_softmax.cu")

MERGES = [
    # blind audit AS (was 'row_sum[0] = 6.95545, expected 4.63908 ... Hint: l is the sum of
    # exp(x - m) over the row, m the row's max', nothing on the merge): the two factors swapped
    ("merge_factors_swapped", variant(KERNEL, ("l * __expf(m - m_new))\n", "l * __expf(m2 - m_new))\n"),
                                      ("l2 * __expf(m2 - m_new))", "l2 * __expf(m - m_new))")),
     ["the two sums' factors were swapped", "the lane's own sum l was rescaled by exp(m2 - m_new)",
      "the partner's l2 by exp(m - m_new)", "Hint: each sum takes the factor of its own max: "
      "l = l * exp(m - m_new) + l2 * exp(m2 - m_new)"]),
]
