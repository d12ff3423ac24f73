"""The models of notebook 04's flat-grid grey exercise (helpers.exercises.gray_coalesced_models)
that name a mistake from a GPU's output, where the simulator stops at the mistake instead."""

import numpy as np

from helpers.exercises import gray_coalesced as checker


def test_channels_as_char_are_named_from_a_gpus_output():
    """On a GPU bt601_gray's char parameters give no crash: the sums below 0 convert to 0, the
    output ``signed_grey``'s; the simulator stops at the first such conversion."""
    from helpers.exercises import gray_coalesced_models as models
    rgb = checker._launch(checker.CASES[0]).model
    got = models.signed_grey(rgb)
    wrong = np.flatnonzero(np.abs(got.astype(int) - checker.reference(rgb)).ravel() > 1)
    problem, hint = next(models.channels_as_char(got, rgb, wrong, checker.reference))
    assert "grey values are wrong, each the grey of its pixel with its levels of 128 and more " \
           "taken as negative (pixel 0: rgb = (128, 222, 142), grey 0, expected 185" in problem
    assert "bt601_gray's parameters declared char (char r, char g, char b)" in problem
    assert hint.startswith("declare bt601_gray's parameters unsigned")
    assert not list(models.channels_as_char(checker.reference(rgb), rgb, wrong[:0],
                                         checker.reference))
