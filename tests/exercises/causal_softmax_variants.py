"""The causal_softmax variants for tests/exercises/test_causal_softmax.py whose sum's loop is
stepped wrongly: by c++ from the lane, or over the whole row in every lane; whose warp_max's
butterfly starts late; and whose row comes from the lane, not the warp (name, the solution with the mistake in it, the words that the NOT YET
line must contain), as its WRONG list holds."""

from kernel_sources import solution, variant

KERNEL = solution("causal_softmax.cu")

SUM_STEPS = [
    # blind audit TWA-causal_softmax-1: the sum's loop stepped by c++, not c += 32 (was 'the rows
    # do not add up to 1: the sum of exp(x - m) is not the whole row's ... Hint: each lane adds
    # its columns' exp(x - m), then sum = warp_sum(sum) for all 32', silent on the step)
    ("sum_stepped_by_one",
     variant(KERNEL, ("    for (int c = lane; c <= last; c += 32)\n        sum +=",
                      "    for (int c = lane; c <= last; c++)\n        sum +=")),
     ["the sum's loop steps by c++", "lane l added every column from l to last",
      "column c was counted min(c + 1, 32) times", "row 12 adds up to",
      "Hint: step the sum's loop by the warp's 32 lanes, as the max's: for (int c = lane; "
      "c <= last; c += 32)"]),
    # blind audit AR (was the same 'the rows do not add up to 1 ...'): every lane adds the whole
    # row, c from 0 in steps of 1, and warp_sum then adds the 32 copies
    ("every_lane_sums_the_row",
     variant(KERNEL, ("    for (int c = lane; c <= last; c += 32)\n        sum +=",
                      "    for (int c = 0; c <= last; c++)\n        sum +=")),
     ["every row adds up to 1/32, not 1 (row 12: 0.03", "the sum is 32 times the row's",
      "every lane added the whole row's exp(x - m)", "warp_sum then added the 32 lanes' copies",
      "Hint: each lane adds only its own columns, then warp_sum adds the 32 parts: for (int c = "
      "lane; c <= last; c += 32)"]),
]

MAX_SHUFFLES = [
    # blind audit AS (was '1269 of 3500 outputs are wrong (the first is y[16][2] = 0.005802, ...)
    # ... Hint: y = exp(x - m) / sum where c <= last, else 0', the formula again): warp_max's
    # loop starts at offset 8, so each half-warp keeps its own max
    ("warp_max_starts_at_offset_8",
     variant(KERNEL, ("__device__ float warp_max(float v)\n{\n    for (int offset = 16;",
                      "__device__ float warp_max(float v)\n{\n    for (int offset = 8;")),
     ["each lane subtracted a different max (y[16][2] = 0.005802, expected 0.009781)",
      "each lane's max holds only 16 of the warp's 32 lanes (lanes 0 to 15 or 16 to 31, its "
      "own half)", "warp_max's loop started at offset 8: its shuffle at offset 16",
      "Hint: warp_max's loop starts at offset 16", "for (int offset = 16; offset > 0; offset /= 2)"]),
]

ROWS = [
    # blind audit AT (was 'the kernel crashed: ... called a warp function whose mask names lanes
    # that never call it ... Hint: ... call them after the lane's loop over its columns, not inside
    # it ... and not inside an if', calls it does not have): the row from threadIdx.x % 32, the
    # lane, where threadIdx.x / 32, the warp, belongs
    ("row_from_the_lane",
     variant(KERNEL, ("int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;",
                      "int row = blockIdx.x * blockDim.x / 32 + threadIdx.x % 32;")),
     ["the row came from the lane, threadIdx.x % 32, not the warp, threadIdx.x / 32",
      "the 32 lanes of each warp took 32 different rows",
      "in block 0, lanes 0 to 12 of each of its 2 warps took rows 0 to 12",
      "lanes 13 to 31 (rows 13 to 31, past the last row 12) had returned before the shuffles",
      "Hint: all 32 lanes of a warp share its row, and a block holds blockDim.x / 32 warps, one a "
      "row: row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32"]),
]
