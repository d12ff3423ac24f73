"""Known-wrong wmma_partial_k kernels for tests/exercises/test_wmma_partial_k.py about the warps
past the last tile of C (those of the last block when the tiles are not a multiple of its four
warps): (name, source, words that the NOT YET line must contain), as its WRONG list holds."""

from kernel_sources import solution, variant

KERNEL = solution("wmma_partial_k.cu")
RETURN = "    if (tile_row >= M / 16) return;      // a warp past the last tile\n"

WARPS_PAST_THE_LAST_TILE = [
    ("no_return_past_the_last_tile", variant(KERNEL, (RETURN, "")),
     ["elements past the end of C were written", "a warp past the last tile must return"]),
    # blind audit AE (was 'elements past the end of C were written ... Hint: a warp past the last
    # tile must return', the return being there): M and N mixed up in the guard, tile_row >= N / 16
    ("guard_tile_row_against_n", variant(KERNEL, ("if (tile_row >= M / 16) return;",
                                                  "if (tile_row >= N / 16) return;")),
     ["the warps whose tile_row is M / 16 = 2 went on and stored their tiles below C, in rows 32 "
      "to 47: the guard compares tile_row with N / 16 = 3", "Hint: tile_row counts C's rows of "
      "tiles, of which there are M / 16: if (tile_row >= M / 16) return;"]),
    # blind audit AC (was 'the kernel crashed: ... a read of A ... 53 bytes past the end of its
    # 4288 bytes ... Hint: stage only elements inside A and B: 0 where k0 + col (A) or k0 + r (B)
    # reaches K', the K guards being right): the return of the warps past the last tile taken
    # out, only the store guarded, so a warp with no tile stages A's rows past M
    ("only_the_store_guarded", variant(KERNEL, (RETURN, ""),
                                       ("    wmma::store_matrix_sync(", "    if (tile_row < M / 16)\n    wmma::store_matrix_sync(")),
     ["warp 2 (threads 64 to 95 of block 0) has no tile (tile_row = 1, M / 16 = 1)",
      "A's rows tile_row * 16 + r = 16 to 31, past A's 16",
      "Hint: keep if (tile_row >= M / 16) return; before the loop"]),
    # blind audit AK (was 'PASS: C = A B for 3 shapes ... and no race'): both warp barriers
    # written as block barriers, as in section 3's kernel, which the warps past the last tile,
    # returned before the loop, never reach
    ("block_barriers_after_the_return", KERNEL.replace("__syncwarp();", "__syncthreads();"),
     ["the warps with no tile (tile_row >= M / 16: with M = 32, N = 48, warps 6 and 7 of block 1) "
      "return at line ", "before the __syncthreads() at line ", "that the block's other warps wait "
      "at", "Hint: each warp stages and reads only its own tiles, As[w] and Bs[w]: __syncwarp() in "
      "place of each __syncthreads()"]),
]
