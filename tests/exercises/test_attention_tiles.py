"""The attention_tiles checker (helpers.exercises.attention_tiles) of notebook 14: the solution
and two unusual right kernels pass, the stub fails, and each known mistake fails with the hint
written for it; a missing barrier is named by the simulator's race check. The solution and its
variants are compiled as one module (and, on PyCUDA, once more on the simulator)."""

import pytest

from kernel_sources import (assert_mistake_named, assert_refused_and_named, compile_variant_pairs,
                            simulator_only, solution, variant)

from helpers.exercises import attention_tiles as checker

KERNEL = solution("attention_tiles.cu")

# (name, source, words that the NOT YET line must contain)
WRONG = [
    # blind audit AC (was 'row 0 of o is wrong' with a generic hint): the missing keys masked by
    # the key the thread staged, j, not the key jj it scores
    ("masked_by_the_staged_key", variant(KERNEL, ("int keys = min(TILE, n - tile * TILE);", "int keys = TILE;"),
                                         ("                s += qi[c] * Ks[jj][c];\n",
                                          "                s += qi[c] * Ks[jj][c];\n"
                                          "            if (j >= n)\n                s = -INFINITY;\n")),
     ["the mask if (j >= n) tests j = tile * TILE + t, the key this thread staged, not the key "
      "it scores, tile * TILE + jj", "the queries with t < 11 scored the 21 zero keys 75 to 95",
      "Hint: test the scored key, tile * TILE + jj >= n"]),
    # blind audit X5 (was 'row 0 of o is wrong' with a generic hint): a causal walk's tile count
    ("tiles_up_to_the_block", variant(KERNEL, ("int tiles = (n + TILE - 1) / TILE;",
                                               "int tiles = blockIdx.x + 1;")),
     ["block b walked only the tiles of keys 0 to b", "tiles = blockIdx.x + 1",
      "tiles = (n + TILE - 1) / TILE"]),
    # blind audit X6 (was 'row 0 of o is wrong' with a generic hint): the tile's first key counted
    # in HEAD_DIMs
    ("keys_counted_from_tile_times_head_dim",
     variant(KERNEL, ("min(TILE, n - tile * TILE);", "min(TILE, n - tile * HEAD_DIM);")),
     ["the tiles scored 32, 11, 0 keys, where they hold 32, 32, 11", "t * HEAD_DIM",
      "keys = min(TILE, n - tile * TILE)"]),
    # blind audit TDA-attention_tiles-1: the staging guarded by the query's i < n (was 'a read of
    # k[4800] ... Hint: ... a guard like if (i < n)', the learner's own guard)
    ("staging_guarded_by_the_query",
     variant(KERNEL, ("Ks[t][c] = j < n ?", "Ks[t][c] = i < n ?"), ("Vs[t][c] = j < n ?", "Vs[t][c] = i < n ?")),
     ["the last block's queries (rows 64 to 74) scored zeros for keys that exist: Ks and Vs were "
      "staged under the query's test i < n", "Ks[t][c] = j < n ?"]),
    # blind audit E45: each thread's count of keys from its own staged key j
    ("keys_counted_from_j", variant(KERNEL, ("min(TILE, n - tile * TILE);", "min(TILE, n - j);")),
     ["each thread counted the tile's keys from its own staged key j", "min(TILE, n - tile * TILE)"]),
    # blind audit J3: the count taken as the last key's index, min(TILE - 1, n - 1 - tile * TILE):
    # the last key of every tile never scored (was 'row 0 of o is wrong' with a generic hint)
    ("last_key_of_each_tile_skipped", variant(KERNEL, ("min(TILE, n - tile * TILE);",
                                                       "min(TILE - 1, n - 1 - tile * TILE);")),
     ["the last key of every tile (keys 31, 63, ... and 74) was never scored", "one short",
      "keys = min(TILE, n - tile * TILE)"]),
    # blind audit N3: the count one short of the keys left, min(TILE, n - tile * TILE - 1): only
    # the very last key, n - 1, never scored (was 'row 0 of o is wrong' with a generic hint)
    ("very_last_key_skipped", variant(KERNEL, ("min(TILE, n - tile * TILE);",
                                               "min(TILE, n - tile * TILE - 1);")),
     ["the last key, key 74, was never scored, the other 74 were", "one short",
      "keys = min(TILE, n - tile * TILE)"]),
    # blind audit T3: one key too many, min(TILE, n - tile * TILE + 1): the last partial tile
    # scores the zero key staged past n (was 'row 0 of o is wrong' with a generic hint)
    ("one_key_too_many", variant(KERNEL, ("min(TILE, n - tile * TILE);",
                                          "min(TILE, n - tile * TILE + 1);")),
     ["the last, partial tile took one key too many", "keys = min(TILE, n - tile * TILE)"]),
    # blind audit Z6 (was 'the last, partial tile was skipped ... Hint: walk over (n + TILE - 1) /
    # TILE tiles, not n / TILE', a line that is right): the last tile's count with tiles for tile
    ("last_tile_counted_with_tiles",
     variant(KERNEL, ("min(TILE, n - tile * TILE);", "tile < tiles - 1 ? TILE : n - tiles * TILE;")),
     ["the last tile scored no key: its count came out -21, n - tiles * TILE",
      "with n = 64, whole tiles, the last scored none either", "keys = min(TILE, n - tile * TILE)"]),
    # blind audit Z5 (was 'row 0 of o is wrong' with a generic hint): the count from the query row
    ("keys_counted_from_the_query_row",
     variant(KERNEL, ("min(TILE, n - tile * TILE);", "min(TILE, n - i);")),
     ["each thread counted every tile's keys from its own query row i, min(TILE, n - i)",
      "Hint: count from the tile's first key", "min(TILE, n - tile * TILE)"]),
    # blind audit R2-3: the keys shared out evenly over the tiles, keys = n / tiles (was 'row 0
    # of o is wrong' with a generic hint)
    ("keys_an_even_split", variant(KERNEL, ("min(TILE, n - tile * TILE);", "n / tiles;")),
     ["every tile scored 25 keys, n / tiles = 75 / 3, the keys shared out evenly over the tiles, "
      "where the tiles hold 32, 32, 11", "Hint: count the keys of the tile at hand",
      "keys = min(TILE, n - tile * TILE)"]),
    # blind audit AJ (was 'the last tile scored no key: its count came out -21, n - tiles *
    # TILE', a count that is right): the tile count (n - 1) / TILE, one tile short at every n
    ("tiles_one_short", variant(KERNEL, ("(n + TILE - 1) / TILE;", "(n - 1) / TILE;")),
     ["the loop walked one tile too few, 2 where the keys fill 3", "keys 64 to 74 were never "
      "scored (and with n = 64, whole tiles, keys 32 to 63 neither, one tile walked of 2)",
      "Hint: walk (n + TILE - 1) / TILE tiles"]),
    ("last_tile_skipped", variant(KERNEL, ("(n + TILE - 1) / TILE;", "n / TILE;")),
     ["the last, partial tile was skipped", "(n + TILE - 1) / TILE"]),
    # blind audit AB (was 'the last, partial tile was skipped ... Hint: walk over (n + TILE - 1) /
    # TILE tiles, not n / TILE', to a learner who wrote ceil and thought it rounded up): the tile
    # count as ceil(n / TILE), of an integer division
    # (ceil(n / TILE) itself does not compile, as nvcc refuses ceil of an int: below)
    ("tile_count_ceil_of_an_integer_division",
     variant(KERNEL, ("(n + TILE - 1) / TILE;", "ceilf(n / TILE);")),
     ["the last, partial tile was skipped: o is the attention over the first 64 of the 75 keys: "
      "ceilf(n / TILE) takes the ceiling of an integer division: n / TILE = 75 / 32 is "
      "already 2, rounded down, before ceilf sees it", "round up in integers: (n + TILE - 1) / TILE"]),
    # rounded up from n + TILE - 2: short of a tile only where the last holds one key (it passed)
    ("tile_count_short_of_one_key", variant(KERNEL, ("(n + TILE - 1) / TILE;", "(n + TILE - 2) / TILE;")),
     ["the last, partial tile was skipped", "first 96 of the 97 keys", "(n + TILE - 1) / TILE"]),
    ("missing_keys_scored", variant(KERNEL, ("min(TILE, n - tile * TILE);", "TILE;")),
     ["missing keys of the last tile were scored", "min(TILE, n - tile * TILE)"]),
    # blind audit AKC-attention_tiles-1 (was 'the 21 missing keys of the last tile were scored',
    # as for no min at all): the count min(TILE, n - tile), the tile's number taken off
    ("count_off_the_tile_s_number", variant(KERNEL, ("min(TILE, n - tile * TILE);", "min(TILE, n - tile);")),
     ["keys = min(TILE, n - tile) takes off the tile's number", "counted min(32, 73) = 32 keys",
      "Hint: count from the tile's first key", "min(TILE, n - tile * TILE)"]),
    ("acc_not_rescaled", variant(KERNEL, ("acc[c] = acc[c] * rescale + p * Vs[jj][c];",
                                          "acc[c] += p * Vs[jj][c];")),
     ["the output row acc was not rescaled", "acc = acc * exp(m - m_new)"]),
    # blind audit TEA-attention_tiles-1 (was 'row 0 of o is wrong' with a generic hint): the
    # rescale the wrong way round, exp(m_new - m), which is inf at the first key (m = -INFINITY)
    ("rescale_the_wrong_way_round", variant(KERNEL, ("float rescale = __expf(m - m_new)",
                                                     "float rescale = __expf(m_new - m)")),
     ["the rescale was exp(m_new - m), the wrong way round", "l = 0 * inf",
      "rescale = __expf(m - m_new)"]),
    # blind audit THA-attention_tiles-1 (was 'the rescale was exp(m_new - m), the wrong way round
    # ... Hint: rescale = __expf(m - m_new)', a line that is right): the key's weight taken
    # against the old max, p = __expf(s - m), exp(+inf) = inf at the first key
    ("weight_against_the_old_max", variant(KERNEL, ("p = __expf(s - m_new);", "p = __expf(s - m);")),
     ["the key's weight was taken against the old max, p = exp(s - m)", "exp(+inf) = inf",
      "l and acc are inf", "Hint: take the weight against the new max: p = __expf(s - m_new)"]),
    # the same with the score named otherwise: the source does not say which exp it was, and the
    # verdict names both that give this NaN
    ("weight_against_the_old_max_named_otherwise",
     variant(KERNEL, ("float s = 0.0f;", "float score = 0.0f;"), ("s += qi[c]", "score += qi[c]"),
             ("fmaxf(m, s)", "fmaxf(m, score)"), ("p = __expf(s - m_new);", "p = __expf(score - m);")),
     ["an exp was taken against the old max m", "the key's weight p = exp(s - m)",
      "rescale = __expf(m - m_new), p = __expf(s - m_new)"]),
    ("sum_not_rescaled", variant(KERNEL, ("l = l * rescale + p;", "l += p;")),
     ["the sum l was not rescaled", "l = l * exp(m - m_new) + p"]),
    ("no_scale", variant(KERNEL, ("__half2float(q[(size_t)i * HEAD_DIM + c]) * scale",
                                  "__half2float(q[(size_t)i * HEAD_DIM + c]) + 0.0f * scale")),
     ["not scaled by 1 / sqrt(HEAD_DIM)", "rsqrtf(HEAD_DIM)"]),
    ("no_division", variant(KERNEL, ("__float2half(acc[c] / l)", "__float2half(acc[c])")),
     ["o is acc, not acc / l", "acc[c] / l"]),
    # blind audit TGA-attention_tiles-1 (was 'row 0 of o is wrong' with a generic hint): the
    # output divided by the running max m, not by the sum of the weights l
    ("divided_by_the_max", variant(KERNEL, ("__float2half(acc[c] / l)", "__float2half(acc[c] / m)")),
     ["o is acc / m, not acc / l: the output was divided by m, the largest score",
      "row 0: m = ", "Hint: divide by the sum of the weights, l: o[(size_t)i * HEAD_DIM + c] = "
      "__float2half(acc[c] / l)"]),
    # blind audit AP (was '... Hint: two threads store into the same element of the shared array'):
    # the query's running max and sum declared __shared__, one pair for the whole block
    ("running_pair_declared_shared", variant(KERNEL, ("float m = -INFINITY, l = 0.0f;",
                                                      "__shared__ float m, l; m = -INFINITY; l = 0.0f;")),
     ["m is declared __shared__: one m for the whole block, not one for each thread",
      "Hint: declare m without __shared__, a plain local each thread keeps in its own register"]),
    ("no_barrier_before_the_scores", variant(KERNEL, ("        __syncthreads();\n        int keys", "        int keys")),
     ["data race on", "__syncthreads()"]),
    ("no_barrier_before_the_next_tile", variant(KERNEL, (
        "        __syncthreads();                  // the tile is used up before the next is staged\n", "")),
     # blind audit TVA-attention_tiles-1: was '... (a read-after-write hazard) ... Hint: ... put a
     # __syncthreads() between the write and the read (attention_tiles.cu:26 and
     # attention_tiles.cu:34)', where one already is
     ["data race on", "went on to stage the next tile's keys and values into Ks[0] (",
      "while thread (1, 0, 0) still reads this tile's (",
      "a write-after-read", "Hint: a second __syncthreads() at the end of the tile loop's body, "
      "after the loop over the tile's keys"]),
    ("a_query_past_n_loaded", variant(KERNEL, ("qi[c] = i < n ?", "qi[c] = i <= n ?")),
     ["a read of q[", "1 element past the end", "check that index against that size"]),
    ("no_output_guard", variant(KERNEL, ("    if (i < n)\n        for", "    for")),
     ["o was written past its last row", "if (i < n)"]),
    # blind audit TFA-attention_tiles-1 (was 'row 0 of o is wrong' with a generic hint): k[t] and
    # v[t] staged in every tile, keys 0 to 31 each time, not the tile's key j
    ("first_tile_staged_in_every_tile",
     variant(KERNEL, ("k[(size_t)j * HEAD_DIM + c]", "k[(size_t)t * HEAD_DIM + c]"),
             ("v[(size_t)j * HEAD_DIM + c]", "v[(size_t)t * HEAD_DIM + c]")),
     ["every tile staged the first tile's keys", "k[t] and v[t]", "keys 0 to 31",
      "k[(size_t)j * HEAD_DIM + c]"]),
    ("tiles_overlap", variant(KERNEL, ("int j = tile * TILE + t;", "int j = tile + t;")),
     ["the tiles overlap: tile 1 staged keys 1 to 32", "j = tile * TILE + t"]),
    # blind audit TPA-attention_tiles-1 (was 'row 0 of o is wrong ... Hint: ... compare your
    # walk over the tiles with the one in the notebook's attention_tiled'): the key's two factors
    # swapped, j = tile + t * TILE
    ("key_index_factors_swapped", variant(KERNEL, ("int j = tile * TILE + t;",
                                                   "int j = tile + t * TILE;")),
     ["tile 1 staged keys 1, 33, 65 in slots 0 to 2 (zeros in the rest, past n = 75), where it "
      "holds keys 32 to 63", "j = tile + t * TILE", "thread t stages key j = tile * TILE + t"]),
    ("own_key_scored", variant(KERNEL, ("s += qi[c] * Ks[jj][c];", "s += qi[c] * Ks[t][c];")),
     ["scored its own staged key, Ks[t]", "Ks[jj][c]"]),
    ("own_value_added", variant(KERNEL, ("p * Vs[jj][c];", "p * Vs[t][c];")),
     ["added its own staged value, Vs[t]", "p * Vs[jj][c]"]),
    ("values_from_k", variant(KERNEL, ("__half2float(v[(size_t)j", "__half2float(k[(size_t)j")),
     ["Vs was staged from k", "v[j * HEAD_DIM + c]"]),
    # blind audit TNA-attention_tiles-1 (was 'Vs was staged from k ... Hint: Vs[t][c] comes from
    # v[j * HEAD_DIM + c]', a line that is right): Ks where Vs belongs in the acc update
    ("keys_added_for_values", variant(KERNEL, ("p * Vs[jj][c]", "p * Ks[jj][c]")),
     ["the acc update added the keys, Ks[jj][c], where the values Vs[jj][c] belong",
      "Vs is staged but never read", "Hint: acc[c] = acc[c] * rescale + p * Vs[jj][c]"]),
    ("keys_from_v", variant(KERNEL, ("__half2float(k[(size_t)j", "__half2float(v[(size_t)j")),
     ["Ks was staged from v", "k[j * HEAD_DIM + c]"]),
    ("last_whole_tile_unscored", variant(KERNEL, ("int keys = min(TILE, n - tile * TILE);",
                                                  "int keys = tile == tiles - 1 ? n % TILE : TILE;")),
     ["n = 64 is a whole number of tiles", "min(TILE, n - tile * TILE)"]),
    ("m_never_updated", variant(KERNEL, ("            m = m_new;\n", "")),
     ["m was never set to m_new", "m = m_new"]),
    ("m_updated_first", variant(KERNEL, ("            m = m_new;\n", ""),
                                ("float m_new = fmaxf(m, s);", "float m_new = fmaxf(m, s); m = m_new;")),
     ["neither l nor acc was rescaled", "set m = m_new after l and acc"]),
    # blind audit TRA-attention_tiles-1: q divided by scale, rsqrtf read as a square root (was
    # 'row 0 of o is wrong ... Hint: ... compare your walk over the tiles with the one in the
    # notebook's attention_tiled', silent on the scale)
    ("q_divided_by_the_scale", variant(KERNEL, ("__half2float(q[(size_t)i * HEAD_DIM + c]) * scale",
                                                "__half2float(q[(size_t)i * HEAD_DIM + c]) / scale")),
     ["the scores were 64 times too large", "multiplied by sqrt(HEAD_DIM) = 8",
      "rsqrtf(x) is 1 / sqrt(x)", "qi[c] = __half2float(q[(size_t)i * HEAD_DIM + c]) * scale"]),
    # blind audit AG (was 'the scores were scaled by 1 / HEAD_DIM, not 1 / sqrt(HEAD_DIM) ...
    # Hint: multiply q (or each score) by rsqrtf(HEAD_DIM)', which it did, twice): q scaled as it
    # is loaded and each score again, s *= scale
    ("scaled_twice", variant(KERNEL, ("                s += qi[c] * Ks[jj][c];\n",
                                      "                s += qi[c] * Ks[jj][c];\n            s *= scale;\n")),
     ["the scores were scaled twice", "qi[c] = ... * scale", "s *= scale",
      "Hint: scale once"]),
    ("scale_one_over_d", variant(KERNEL, ("rsqrtf((float)HEAD_DIM);", "1.0f / HEAD_DIM;")),
     ["scaled by 1 / HEAD_DIM, not 1 / sqrt(HEAD_DIM)", "rsqrtf(HEAD_DIM)"]),
    ("scale_of_the_tile", variant(KERNEL, ("rsqrtf((float)HEAD_DIM);", "rsqrtf((float)TILE);")),
     ["scaled by 1 / sqrt(TILE)", "rsqrtf(HEAD_DIM)"]),
    ("query_steps_by_head_dim", variant(KERNEL, ("i = blockIdx.x * TILE + t;",
                                                 "i = blockIdx.x * HEAD_DIM + t;")),
     ["the query index steps by HEAD_DIM, not TILE", "i = blockIdx.x * TILE + threadIdx.x"]),
    ("scale_in_ints", variant(KERNEL, ("rsqrtf((float)HEAD_DIM);", "1 / 8;")),
     ["every score was 0", "integer division", "rsqrtf(HEAD_DIM)"]),
    ("keys_tile_apart", variant(KERNEL, ("k[(size_t)j * HEAD_DIM + c]", "k[(size_t)j * TILE + c]")),
     ["TILE elements apart", "k[j * HEAD_DIM + c]"]),
    # blind audit TIA-attention_tiles-1: the row length left out of the staging (was 'row 0 of
    # o is wrong. Hint: o = softmax(q k^T / sqrt(HEAD_DIM)) v: compare your walk ...')
    ("keys_and_values_without_the_row_length",
     variant(KERNEL, ("k[(size_t)j * HEAD_DIM + c]", "k[(size_t)j + c]"),
             ("v[(size_t)j * HEAD_DIM + c]", "v[(size_t)j + c]")),
     ["the keys and values were staged from k[j + c] and v[j + c]",
      "key j starts at element j * HEAD_DIM",
      "Hint: a key is HEAD_DIM elements long: Ks[t][c] = k[(size_t)j * HEAD_DIM + c], "
      "Vs[t][c] = v[(size_t)j * HEAD_DIM + c]"]),
    # blind audit TAAA-attention_tiles-1: the score's dot product bounded by TILE (was 'row 0 of
    # o is wrong ... compare your walk over the tiles with the one in the notebook's
    # attention_tiled', the loop bound not named)
    ("score_over_tile_dims", variant(KERNEL, ("for (int c = 0; c < HEAD_DIM; ++c)\n                s += qi[c]",
                                              "for (int c = 0; c < TILE; ++c)\n                s += qi[c]")),
     ["each score summed only the first 32 of the HEAD_DIM = 64 products qi[c] * Ks[jj][c]",
      "row 0's score against key 0 came out ", "Hint: a score is the dot product over the whole "
      "head: for (int c = 0; c < HEAD_DIM; ++c) s += qi[c] * Ks[jj][c]"]),
    ("keys_of_the_queries", variant(KERNEL, ("k[(size_t)j * HEAD_DIM + c]", "k[(size_t)i * HEAD_DIM + c]")),
     ["Ks was staged from the query index i", "j = tile * TILE + t"]),
    # audit 3: the last tile's count in every tile; the count from the query tile, blockIdx.x
    ("last_tile_s_count_everywhere", variant(KERNEL, ("min(TILE, n - tile * TILE);",
                                                      "TILE - (tiles * TILE - n);")),
     ["every tile scored 11 keys, the last tile's count", "min(TILE, n - tile * TILE)"]),
    # audit G5: the tile's first key taken off after the min: tiles 1 and up score no key
    ("tile_taken_off_after_the_min", variant(KERNEL, ("min(TILE, n - tile * TILE);",
                                                      "min(TILE, n) - tile * TILE;")),
     ["o is the attention over the first 32 keys alone, tile 0's", "tile * TILE inside the min"]),
    ("count_from_the_query_tile", variant(KERNEL, ("min(TILE, n - tile * TILE);",
                                                   "min(TILE, n - blockIdx.x * TILE);")),
     ["the count was taken from blockIdx.x", "min(TILE, n - tile * TILE)"]),
    # audit B (2026-12): the count without the min (was the general hint for a fixed-size array:
    # declare it larger); the loop to keys itself
    ("keys_not_capped_at_the_tile", variant(KERNEL, ("int keys = min(TILE, n - tile * TILE);",
                                                     "int keys = n - tile * TILE;")),
     ["(index 32)", "Ks and Vs hold one tile, TILE = 32 keys", "reached slot 32",
      "keys = min(TILE, n - tile * TILE)"]),
    # blind audit AF (was 'the kernel crashed: ... indexed an array past the size it was declared
    # with (index 32) ... Hint: ... n - tile * TILE alone counts every key left'): the count
    # capped with max where min belongs
    ("keys_capped_with_max", variant(KERNEL, ("int keys = min(TILE, n - tile * TILE);",
                                              "int keys = max(TILE, n - tile * TILE);")),
     ["keys = max(TILE, n - tile * TILE)", "max takes the larger of the two",
      "Hint: cap the count with min: keys = min(TILE, n - tile * TILE)"]),
    # blind audit AE (was 'row 0 of o is wrong' with a generic hint): the running max and sum set
    # back at the start of every tile, which wipes acc at the tile's first key
    ("max_and_sum_reset_every_tile", variant(KERNEL, (
        "        int j = tile * TILE + t;          // the key this thread stages\n",
        "        int j = tile * TILE + t;          // the key this thread stages\n"
        "        m = -INFINITY; l = 0.0f;\n")),
     ["o is the attention over the last tile's keys alone (keys 64 to 74 of the 75)",
      "m and l started afresh at each tile (m = -INFINITY, l = 0 inside the tile loop)",
      "exp(m - m_new) = exp(-inf) = 0", "Hint: set m = -INFINITY and l = 0 once, before the loop "
      "over the tiles"]),
    ("loop_through_keys_itself", variant(KERNEL, ("jj < keys;", "jj <= keys;")),
     ["(index 32)", "reached slot 32", "and jj < keys"]),
    # blind audit AH (was 'every row of o is NaN: an exp was taken against the old max m ...'):
    # the missing keys of the last tile met with return, not break, in the loop over the tile's
    # keys, so every thread returns in the last, partial tile before it writes its row of o
    ("return_for_a_missing_key", variant(KERNEL, (
        "        int keys = min(TILE, n - tile * TILE);\n"
        "        for (int jj = 0; jj < keys; ++jj) {\n",
        "        for (int jj = 0; jj < TILE; ++jj) {\n"
        "            if (tile * TILE + jj >= n)\n                return;\n")),
     ["o was never written (not one of its 75 rows)", "tile * TILE + jj >= n", "return at line",
      "Hint: a key past the end ends the loop over the tile's keys, not the kernel: break"]),
    # blind audit AD (was 'only the first 64 rows of o are right ... Hint: a loop or a guard
    # stops short', no bound short): an early return for the threads past the last query, as in
    # the earlier kernels, so they stage no key and skip the barriers
    ("return_past_the_last_query", variant(KERNEL, (
        "    int t = threadIdx.x, i = blockIdx.x * TILE + t;       // this thread's query\n",
        "    int t = threadIdx.x, i = blockIdx.x * TILE + t;       // this thread's query\n"
        "    if (i >= n) return;\n")),
     ["rows 64 to 74 of o are wrong, the last block's queries",
      "threads 11 to 31 of the last block (block 2, queries 75 to 95, i >= n) return at line",
      "staged no key or value", "the __syncthreads() at line", "Hint: a thread past n still "
      "stages its tile's key and reaches every barrier", "if (i < n)"]),
    # blind audit AL (was 'only the first 64 rows of o are right ... Hint: a loop or a guard stops
    # short', no bound short): the tile loop inside if (i < n), so the threads past n stage no key
    # and skip the barriers the others reach
    ("tile_loop_inside_if_i_below_n", variant(KERNEL, (
        "    for (int tile = 0; tile < tiles; ++tile) {", "    if (i < n) {\n    for (int tile = 0; tile < tiles; ++tile) {"),
        ("staged\n    }\n", "staged\n    }\n    }\n")),
     ["rows 64 to 74 of o are wrong, the last block's queries", "threads 11 to 31 of the last "
      "block (block 2, queries 75 to 95, i >= n) skip the tile loop inside if (i < n)",
      "and with it the __syncthreads() at line", "Hint: a thread past n still stages its tile's key and "
      "reaches every barrier"]),
    # blind audit AIC-attention_tiles-1 (was 'PASS: attention over every key ...'): the running
    # max started at 0, so a query whose scores are all far below 0 got exp(s - 0) = 0 everywhere
    ("max_starts_at_0", variant(KERNEL, ("float m = -INFINITY, l = 0.0f;", "float m = 0.0f, l = 0.0f;")),
     ["o is NaN in exactly the rows whose scores are all far below 0 (rows 3, 7, 11, ...: the "
      "largest of their scores is -177)", "the running max started at 0",
      "Hint: start the running max at -INFINITY"]),
]
# The simulator only: on a GPU the slots past Ks are Vs, then past the block's shared memory
SIMULATOR_ONLY = dict.fromkeys(("keys_not_capped_at_the_tile", "loop_through_keys_itself",
                                "keys_capped_with_max"),
                               "a read past a shared array: garbage, or an illegal address, on a GPU")
SIMULATOR_ONLY["return_past_the_last_query"] = "slots of Ks and Vs no thread staged: garbage"
SIMULATOR_ONLY["tile_loop_inside_if_i_below_n"] = ("a barrier the threads past n never reach, and "
                                                   "slots of Ks and Vs no thread staged: garbage")

# Right, though not as the solution does it: powers of 2 (exp2f, the scale times log2(e)), as
# FlashAttention's kernels compute them...
EXP2 = variant(KERNEL, ("rsqrtf((float)HEAD_DIM);", "rsqrtf((float)HEAD_DIM) * 1.44269504f;"),
               ("__expf(m - m_new), p = __expf(s - m_new);", "exp2f(m - m_new), p = exp2f(s - m_new);"))
# ... and a tile staged by all the block's threads along the rows (each a column at a time).
ALONG_ROWS = variant(KERNEL, (
    "        int j = tile * TILE + t;          // the key this thread stages\n"
    "        for (int c = 0; c < HEAD_DIM; ++c) {\n",
    "        for (int e = t; e < TILE * HEAD_DIM; e += TILE) {\n"
    "            int r = e / HEAD_DIM, c = e % HEAD_DIM, j = tile * TILE + r;\n"),
    ("            Ks[t][c] =", "            Ks[r][c] ="), ("            Vs[t][c] =", "            Vs[r][c] ="))



@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL, "exp2": EXP2, "along_rows": ALONG_ROWS,
               **{w[0]: w[1] for w in WRONG}}
    return compile_variant_pairs("attention_tiles", sources, no_extern_c=True)


@pytest.mark.parametrize("name", ["solution", "exp2", "along_rows"])
def test_right_kernels_pass(name, kernels, capsys):
    verdict = checker.check_attention_tiles_kernel(*kernels[name])
    out = capsys.readouterr().out
    assert verdict.passed is True, out
    assert out.strip() == str(verdict)


def test_the_stub_skips_the_last_tile(capsys):
    verdict = checker.check_attention_tiles()
    out = capsys.readouterr().out
    assert not verdict and out.startswith("NOT YET:"), out
    assert "the last, partial tile was skipped" in verdict.problem, out


@pytest.mark.parametrize("name, source, expected",
                         simulator_only(WRONG, SIMULATOR_ONLY))
def test_known_mistake_fails_with_its_hint(name, source, expected, kernels, capsys):
    verdict = checker.check_attention_tiles_kernel(*kernels[name])
    out = capsys.readouterr().out
    assert_mistake_named(verdict, out, name, expected)


@pytest.mark.parametrize("name", sorted(SIMULATOR_ONLY))
def test_what_a_gpu_cannot_tell_safely_is_named_by_the_simulator_s_launch(name, kernels, capsys):
    """The right kernel stands in for the GPU's, the wrong one is simulated: the checker's launch
    on the simulator names the mistake with its hint."""
    verdict = checker.check_attention_tiles_kernel(kernels["solution"][0], kernels[name][1])
    out = capsys.readouterr().out
    assert_mistake_named(verdict, out, name, ["on the simulator", *dict(
        (w[0], w[2]) for w in WRONG)[name][1:]])


def test_ceil_of_an_integer_division_does_not_compile_and_is_named(capsys):
    """nvcc refuses ceil of an int in device code (the C++ library's host function), and so does
    the simulator: the verdict names the call and rounds up in integers."""
    assert_refused_and_named(checker.check_attention_tiles, "attention_tiles", "ceil_of_an_int",
                             [("(n + TILE - 1) / TILE;", "ceil(n / TILE);")],
                             {"problem": "calls ceil(int): in device code CUDA's ceil takes a "
                                         "float or a double",
                              "hint": "round up in integers, (n + TILE - 1) / TILE"})



def test_the_standard_library_s_infinity_does_not_compile_and_is_named(capsys):
    """std::numeric_limits<float>::infinity() for the running max's start: nvcc refuses the
    standard library's host function in device code, and so does the simulator: the verdict names
    it and gives the C constant."""
    assert_refused_and_named(checker.check_attention_tiles, "attention_tiles", "numeric_limits",
                             [("#include <cuda_fp16.h>", "#include <cuda_fp16.h>\n#include <limits>"),
                              ("float m = -INFINITY", "float m = -std::numeric_limits<float>::infinity()")],
                             {"problem": "uses std::numeric_limits::infinity, from the C++ standard "
                                         "library, which is host code",
                              "hint": "FLT_MAX (and -FLT_MAX), INFINITY"})
