"""The exps of attention_tiles' online softmax (``helpers.exercises.attention_tiles``) taken of
base 2, exp2f, where the softmax's are e to the power: 2^x = e^(x ln 2), so the weights are those
of the scores times ln 2, a walk whose scale is ln 2 / sqrt(HEAD_DIM), unless log2(e) is folded
into the scale (then exp2f is right)."""

from __future__ import annotations

import math

from helpers.exercises.attention_tiles_models import D
from helpers.exercises.microscope import body_words

BASE_2 = ("exp2f", "exp2")


def _calls(words, names):
    """Each call of one of ``names`` in ``words``, as written: exp2f(s - m_new)."""
    found = []
    for i in (i for i in range(len(words) - 1) if words[i] in names and words[i + 1] == "("):
        depth, j = 1, i + 2
        while j < len(words) and depth:
            depth += {"(": 1, ")": -1}.get(words[j], 0)
            j += 1
        found.append(f"{words[i]}({' '.join(words[i + 2:j - 1])})")
    return list(dict.fromkeys(found))


def base_2(inputs, kernels):
    """(inputs, walk's keywords, problem, hint) of the weights and the rescale taken with exp2f:
    the walk with its scale times ln 2 (the kernel's exp2f calls named where its text has them)."""
    calls = _calls(body_words(kernels), BASE_2)
    said = " and ".join(calls) if calls else "exp2f"
    yield (inputs, dict(scale=D ** -0.5 * math.log(2)), "o is the softmax of the scores times "
           f"ln 2 = {math.log(2):.3f}, a flatter one: the exps were taken with {said}, 2 to "
           "the power, where the softmax's are e to the power (2^x = e^(x ln 2))",
           "take them with __expf: rescale = __expf(m - m_new), p = __expf(s - m_new); or keep "
           "exp2f and fold log2(e) into the scale: scale = rsqrtf((float)HEAD_DIM) * 1.44269504f, "
           "so that exp2f of the scaled scores is e to the power of the true ones")
