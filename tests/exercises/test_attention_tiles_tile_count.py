"""The attention_tiles checker (helpers.exercises.attention_tiles) on the count of tiles the loop
walks: a count that came out 1, the first tile's keys alone scored, is told apart from a walk of
every tile whose later tiles scored no key by the tiles staged (a launch on the simulator), and a
?: that took the whole sum as its condition is named in the kernel's own words."""

import pytest

from kernel_sources import assert_mistake_named, compile_variant_pairs, solution, variant

from helpers.exercises import attention_tiles as checker

KERNEL = solution("attention_tiles.cu")

# (name, source, words that the NOT YET line must contain)
WRONG = [
    # blind audit AP (was 'o is the attention over the first 32 keys alone, tile 0's: tiles 1
    # and up scored no key, their count came out 0 or less, as min(TILE, n) - tile * TILE does',
    # a count that is right): the tile count rounded up with a ?: whose condition took the sum
    ("tiles_ternary_precedence", variant(KERNEL, ("(n + TILE - 1) / TILE;",
                                                  "n / TILE + (n % TILE) ? 1 : 0;")),
     ["the loop walked one tile, where the keys fill 3: keys 32 to 74 were never scored",
      "tiles = n / TILE + (n % TILE) ? 1 : 0 reads as tiles = (n / TILE + (n % TILE)) ? 1 : 0",
      "?: binds more loosely than +", "Hint: put the ?: in parentheses, n / TILE + (n % TILE ? "
      "1 : 0), or round up in integers: (n + TILE - 1) / TILE"]),
    # the tile count 1 written some other way: the tiles walked are named, not the ?:
    ("one_tile_walked", variant(KERNEL, ("(n + TILE - 1) / TILE;", "n > 0;")),
     ["the loop walked one tile, where the keys fill 3: keys 32 to 74 were never scored",
      "the tile count came out 1", "Hint: walk (n + TILE - 1) / TILE tiles"]),
]


@pytest.fixture(scope="module")
def kernels():
    return compile_variant_pairs("attention_tiles", {w[0]: w[1] for w in WRONG}, no_extern_c=True)


@pytest.mark.parametrize("name, source, expected", WRONG, ids=[w[0] for w in WRONG])
def test_a_tile_count_of_one_is_named(name, source, expected, kernels, capsys):
    verdict = checker.check_attention_tiles_kernel(*kernels[name])
    out = capsys.readouterr().out
    assert_mistake_named(verdict, out, name, expected)
