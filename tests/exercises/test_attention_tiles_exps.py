"""The attention_tiles checker (helpers.exercises.attention_tiles) on the base of the exps: exp2f
in place of __expf, log2(e) not folded into the scale, is named (the softmax of the scores times
ln 2); exp2f with log2(e) folded into the scale is right and passes."""

import pytest

from kernel_sources import assert_mistake_named, compile_variant_pairs, solution, variant

from helpers.exercises import attention_tiles as checker

KERNEL = solution("attention_tiles.cu")
EXPS = ("float rescale = __expf(m - m_new), p = __expf(s - m_new);",
        "float rescale = exp2f(m - m_new), p = exp2f(s - m_new);")

# (name, source, words that the NOT YET line must contain)
WRONG = [
    # blind audit AU (was 'row 0 of o is wrong (n = 75, ...). Hint: o = softmax(q k^T /
    # sqrt(HEAD_DIM)) v: compare your walk over the tiles with ...', the base not named): exp2f
    # where __expf belongs, log2(e) not folded into the scale
    ("exp2_without_log2e", variant(KERNEL, EXPS),
     ["o is the softmax of the scores times ln 2 = 0.693, a flatter one: the exps were taken "
      "with exp2f(m - m_new) and exp2f(s - m_new), 2 to the power, where the softmax's are e to "
      "the power (2^x = e^(x ln 2))", "Hint: take them with __expf: rescale = __expf(m - m_new), "
      "p = __expf(s - m_new); or keep exp2f and fold log2(e) into the scale"]),
]
RIGHT = {"exp2_with_log2e_folded": variant(KERNEL, EXPS, (
    "const float scale = rsqrtf((float)HEAD_DIM);",
    "const float scale = rsqrtf((float)HEAD_DIM) * 1.44269504f;   // log2(e): exp2f is exp"))}


@pytest.fixture(scope="module")
def kernels():
    return compile_variant_pairs("attention_tiles", {**{w[0]: w[1] for w in WRONG}, **RIGHT},
                                 no_extern_c=True)


@pytest.mark.parametrize("name, source, expected", WRONG, ids=[w[0] for w in WRONG])
def test_exps_of_base_2_are_named(name, source, expected, kernels, capsys):
    verdict = checker.check_attention_tiles_kernel(*kernels[name])
    out = capsys.readouterr().out
    assert_mistake_named(verdict, out, name, expected)


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_exp2_with_log2e_in_the_scale_passes(name, kernels, capsys):
    verdict = checker.check_attention_tiles_kernel(*kernels[name])
    assert verdict.passed is True, capsys.readouterr().out
