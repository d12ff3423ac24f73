"""Known-wrong Julia kernels for tests/exercises/test_julia.py whose pixel's x or y is worked
out wrongly: (name, source, words that the NOT YET line must contain), as its WRONG list holds."""

from kernel_sources import solution, variant

KERNEL = solution("julia.cu")

INDEXING = [
    # blind audit J16: y from threadIdx.x (was '26832 of 28623 pixels were never written ...
    # Hint: ... x = blockIdx.x * blockDim.x + threadIdx.x, and the same for y'); and its mirror
    ("y_from_thread_x", variant(KERNEL, ("int y = blockIdx.y * blockDim.y + threadIdx.y;",
                                         "int y = blockIdx.y * blockDim.y + threadIdx.x;")),
     ["one diagonal line in each block: y took threadIdx.x where it takes threadIdx.y",
      "Hint: y = blockIdx.y * blockDim.y + threadIdx.y"]),
    ("x_from_thread_y", variant(KERNEL, ("int x = blockIdx.x * blockDim.x + threadIdx.x;",
                                         "int x = blockIdx.x * blockDim.x + threadIdx.y;")),
     ["one diagonal line in each block: x took threadIdx.y where it takes threadIdx.x",
      "Hint: x = blockIdx.x * blockDim.x + threadIdx.x"]),
    # blind audit R17: y from blockIdx.x (was '26367 of 28623 pixels were never written ...');
    # and its mirror: the same pixels, told apart by the blocks that raced
    ("y_from_block_x", variant(KERNEL, ("int y = blockIdx.y * blockDim.y + threadIdx.y;",
                                        "int y = blockIdx.x * blockDim.y + threadIdx.y;")),
     ["only 2256 of 28623 pixels were written, those of the blocks on the grid's diagonal",
      "y took blockIdx.x where it takes blockIdx.y",
      "Hint: y = blockIdx.y * blockDim.y + threadIdx.y"]),
    ("x_from_block_y", variant(KERNEL, ("int x = blockIdx.x * blockDim.x + threadIdx.x;",
                                        "int x = blockIdx.y * blockDim.x + threadIdx.x;")),
     ["x took blockIdx.y where it takes blockIdx.x",
      "Hint: x = blockIdx.x * blockDim.x + threadIdx.x"]),
    # blind audit TPA-julia-1: x = threadIdx.x * blockDim.x + blockIdx.x (was '5076 of 28623
    # pixels were never written (the first is x = 13, y = 0)' and the general hint)
    ("x_factors_swapped", variant(KERNEL, ("int x = blockIdx.x * blockDim.x + threadIdx.x;",
                                           "int x = threadIdx.x * blockDim.x + blockIdx.x;")),
     ["thread and block indices swapped: thread t of block b took x = t * 16 + b, so of every 16 "
      "columns only the first 13 (one a block, gridDim.x = 13) were written, and x = 13 to 15 "
      "never", "Hint: the block's number times the block's width, plus the thread's place in the "
      "block: x = blockIdx.x * blockDim.x + threadIdx.x"]),
    # blind audit N16: x's blocks gridDim.x apart (was '4371 of 28623 pixels were never written
    # ... Hint: every pixel needs a thread ...'); y's, and both
    ("x_blocks_grid_dim_apart", variant(KERNEL, ("int x = blockIdx.x * blockDim.x + threadIdx.x;",
                                                 "int x = blockIdx.x * gridDim.x + threadIdx.x;")),
     ["4371 of 28623 pixels were never written: x = blockIdx.x * gridDim.x + threadIdx.x starts "
      "block b's columns at b * 13 (gridDim.x, the number of blocks), not b * 16 (blockDim.x): "
      "the blocks, 16 columns wide, overlap, and columns 172 to 202 were never drawn",
      "Hint: blocks lie blockDim pixels apart (gridDim is how many blocks there are): "
      "x = blockIdx.x * blockDim.x + threadIdx.x"]),
    ("y_blocks_grid_dim_apart", variant(KERNEL, ("int y = blockIdx.y * blockDim.y + threadIdx.y;",
                                                 "int y = blockIdx.y * gridDim.y + threadIdx.y;")),
     ["y = blockIdx.y * gridDim.y + threadIdx.y starts block b's rows at b * 9", "rows 88 to 140",
      "Hint: blocks lie blockDim pixels apart (gridDim is how many blocks there are): "
      "y = blockIdx.y * blockDim.y + threadIdx.y"]),
    ("both_blocks_grid_dim_apart",
     variant(KERNEL, ("int x = blockIdx.x * blockDim.x + threadIdx.x;",
                      "int x = blockIdx.x * gridDim.x + threadIdx.x;"),
             ("int y = blockIdx.y * blockDim.y + threadIdx.y;",
              "int y = blockIdx.y * gridDim.y + threadIdx.y;")),
     ["columns 172 to 202 were never drawn; and y = blockIdx.y * gridDim.y",
      "x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y"]),
]
