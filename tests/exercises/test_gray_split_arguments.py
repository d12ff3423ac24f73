"""The multi-GPU exercise (notebook 11), its kernel's arguments: a launch given them otherwise
than rgb_to_gray(rgb, gray, width, height) takes them is refused before it runs, on both
backends, and named, where the verdict blamed the rows it was given, which were right."""

import pytest

from test_gray_split import assert_named

LAUNCH = "kernels[k](rgb_k, grey_k, np.int32(width), np.int32(rows),"

# name: (replacements in the solution, pieces of the expected verdict)
WRONG = {
    # blind audit AB (was 'device 0's kernel was launched on rows = 111, where its share of 3
    # images has 37 rows, so the kernel was told of more rows than the share has ... Hint: ...
    # rows = (hi - lo) * height', the rows it had): the output first, as memcpy(dest, src)
    "output_passed_first": (
        [(LAUNCH, LAUNCH.replace("rgb_k, grey_k", "grey_k, rgb_k"))],
        # the shares' shapes depend on the devices (one GPU: every image; two simulated: 3 of 7)
        ("device 0's kernel was given its two arrays the other way round, kernels[0](grey_k, "
         "rgb_k, ...): grey_k, of shape (", ", 37, 53), the grey share's, came first, and rgb_k, of "
         "shape (", ", 37, 53, 3), the RGB share's, second", "rgb_to_gray(rgb, gray, width, height) "
         "takes the RGB input first", "Hint: pass the RGB share first, then the grey one: "
         "kernels[k](rgb_k, grey_k, np.int32(width), np.int32(rows), ...)")),
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_launch_s_arguments_out_of_order_are_named(name, capsys):
    replacements, expected = WRONG[name]
    assert_named(replacements, expected, capsys)
