"""The attention_tiles checker (helpers.exercises.attention_tiles) on the staging of a tile's keys
and values: a staging with no test j < n reads k and v past their end in the last, partial tile,
which the launch on the simulator (its inputs allocated to the byte) finds, and the verdict names
the staged key past n and the guard, not the query's i < n."""

import pytest

from kernel_sources import assert_mistake_named, compile_variant_pairs, solution, variant

from helpers.exercises import attention_tiles as checker

KERNEL = solution("attention_tiles.cu")
K_GUARD = ("Ks[t][c] = j < n ? __half2float(k[(size_t)j * HEAD_DIM + c]) : 0.0f;",
           "Ks[t][c] = __half2float(k[(size_t)j * HEAD_DIM + c]);")
V_GUARD = ("Vs[t][c] = j < n ? __half2float(v[(size_t)j * HEAD_DIM + c]) : 0.0f;",
           "Vs[t][c] = __half2float(v[(size_t)j * HEAD_DIM + c]);")

# (name, source, words that the NOT YET line must contain)
WRONG = [
    # blind audit AN (was 'a read of k[4800] ... Hint: k has 4800 elements ... a guard like
    # if (i < n)', the query's guard, which would zero keys that exist): the staging unguarded
    ("staging_unguarded", variant(KERNEL, K_GUARD, V_GUARD),
     ["the staging of the last, partial tile read k past its end", "thread 11 of block 0 "
      "staged key j = tile * TILE + t = 2 * 32 + 11 = 75, past the last key, 74 (n = 75)",
      "and read k[4800] at kernel.cu:", "Hint: stage a zero where the staged key j is past "
      "the end, under its own test: Ks[t][c] = j < n ? __half2float(k[(size_t)j * HEAD_DIM + "
      "c]) : 0.0f"]),
    ("values_staged_unguarded", variant(KERNEL, V_GUARD),
     ["the staging of the last, partial tile read v past its end", "staged key j = tile * "
      "TILE + t = 2 * 32 + 11 = 75", "Vs[t][c] = j < n ? __half2float(v[(size_t)j * HEAD_DIM "
      "+ c]) : 0.0f"]),
]


@pytest.fixture(scope="module")
def kernels():
    return compile_variant_pairs("attention_tiles", {w[0]: w[1] for w in WRONG}, no_extern_c=True)


@pytest.mark.parametrize("name, source, expected", WRONG, ids=[w[0] for w in WRONG])
def test_an_unguarded_staging_is_named(name, source, expected, kernels, capsys):
    verdict = checker.check_attention_tiles_kernel(*kernels[name])
    out = capsys.readouterr().out
    assert_mistake_named(verdict, out, name, expected)
