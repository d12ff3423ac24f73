"""The wmma_partial_k checker (helpers.exercises.wmma_partial_k) of notebook 13: mistakes the
compiler refuses, each named from the simulator's record of g++'s first error."""

import pytest

from kernel_sources import assert_refused_and_named

from helpers.exercises import wmma_partial_k as checker

STAGE_A = "As[w][r][col] = k0 + col < K ? A[(tile_row * 16 + r) * K + k0 + col] : __float2half(0.0f);"
STAGE_B = "Bs[w][r][col] = k0 + r < K ? B[(k0 + r) * N + tile_col * 16 + col] : __float2half(0.0f);"


# Mistakes the compiler refuses, each named from the simulator's record of g++'s first error
# (on a GPU, the same file compiled on the simulator): blind audit F44, the zero written as a
# float in the ?: whose other side is a half (was 'does not compile. Hint: read the compiler's
# first error ...')
DOES_NOT_COMPILE = {
    "float_zero_beside_a_half": ([(STAGE_A, STAGE_A.replace(": __float2half(0.0f)", ": 0.0f")),
                                  (STAGE_B, STAGE_B.replace(": __float2half(0.0f)", ": 0.0f"))],
                                 "line 23's ?: gives a const half on one side",
                                 "make both sides half, __float2half(0.0f)"),
    # blind audit AG (was '... from &As[w][0][0], a float pointer ... Hint: declare &As[w][0][0]
    # and &Bs[w][0][0] half ...: const half *&As[w][0][0]'): the shared tiles declared float
    "shared_tiles_declared_float": ([("half As[4]", "float As[4]"), ("half Bs[4]", "float Bs[4]")],
                                    "As and Bs were declared float (lines 11 and 12) where the "
                                    "fragments' half belongs", "declare As and Bs half, as their "
                                    "fragments are: __shared__ __align__(32) half As[4][16][16];"),
}


@pytest.mark.parametrize("name", sorted(DOES_NOT_COMPILE))
def test_a_mistake_the_compiler_refuses_is_named(name, capsys):
    replacements, problem, hint = DOES_NOT_COMPILE[name]
    assert_refused_and_named(checker.check_wmma_partial_k, "wmma_partial_k", name, replacements,
                             {"problem": problem, "hint": hint})
