"""The multi-GPU exercise (notebook 11), its shares: bounds lo and hi that give the right result
but leave devices idle, with several devices (on the simulator's two, or a machine's GPUs)."""

import pytest

from test_gray_split import SEVERAL, SPLIT, assert_named

# name: (replacements in the solution, pieces of the expected verdict)
WRONG = {
    # blind audit AR (was "the result is right, but device 0 did no work: 7 images and 2 devices
    # ... Hint: every device takes a share: give device k the images lo = k * count // n ...",
    # the formula restated): the bounds divided first, k // n * count, 0 for every k < n
    "share_bounds_divided_first": (
        [(SPLIT, "        lo, hi = k // n * count, (k + 1) // n * count\n")],
        ("the result is right, but device 0 did no work and device 1 converted all 7 images: the "
         "shares were [0, 0) and [0, 7)", "k // n * count (line 11 of your cell: lo, hi = k // n "
         "* count, (k + 1) // n * count) divides first: k // n is 0 for every device k < n = 2",
         "Hint: multiply first, then divide: lo = k * count // n, hi = (k + 1) * count // n")),
}


@pytest.mark.skipif(not SEVERAL, reason="needs several devices")
@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_share_s_mistake_is_named(name, capsys):
    assert_named(*WRONG[name], capsys)
