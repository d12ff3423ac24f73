"""The box_blur exercise's variants for tests/exercises/test_box_blur.py: the solution, the
known-wrong kernels (WRONG: name -> (the replacements in the solution, pieces of the verdict that
name the mistake)), the right but slow ones (SLOW) and the right ones written another way (RIGHT)."""

from kernel_sources import solution

KERNEL = solution("box_blur.cu")
LOAD = "in[clamp_index(y0 + ty, height) * width + clamp_index(x0 + tx, width)]"
BARRIER = "    __syncthreads();                                 // the whole tile is there\n"
GUARD = ("    if (x >= width || y >= height)                   // only now: these threads loaded "
         "a part\n        return;\n")
EARLY = "    // The tile is larger than the block"
MEAN = " * (1.0f / ((2 * RADIUS + 1) * (2 * RADIUS + 1)))"   # the sum made the window's mean
SUM = KERNEL[KERNEL.index("    float sum = 0.0f;"):KERNEL.index("    out[y * width + x] =")]
RESET = ("    float sum;\n    for (int {a} = 0; {a} <= 2 * RADIUS; {a}++) {{\n        sum = 0.0f;\n        for "
         "(int {b} = 0; {b} <= 2 * RADIUS; {b}++)\n            sum += tile[threadIdx.y + dy][threadIdx.x + dx];\n    }}\n")

# name: (replacements in the solution, words the NOT YET line must contain)
TWO_LOOPS = ("    for (int ty = threadIdx.y; ty < TILE_Y; ty += BLOCK_Y)\n"
             "        for (int tx = threadIdx.x; tx < TILE_X; tx += BLOCK_X)\n"
             "            tile[ty][tx] =")
FLAT_LOOP = ("    for (int k = threadIdx.y * BLOCK_X + threadIdx.x; k < TILE_X * TILE_Y;\n"
             "         k += BLOCK_X * BLOCK_Y) {\n"
             "        int ty = k / TILE_X, tx = k % TILE_X;\n"
             "        tile[ty][tx] =")
WRONG = {
    # blind audit AC (was '3465 of 3465 pixels are wrong ... Hint: compare your kernel with the
    # TODOs: tile[ty][tx] holds ...', silent on the sum): the sum reset inside the dy loop (or dx)
    **{f"sum_reset_in_the_{w}_loop": ([(SUM, RESET.format(a=a, b=b))], [f"each pixel is 1/25 of its window's "
        f"last {w} alone, the 5 pixels of {w} {c} + 2", f"the sum is reset to 0 inside the {a} loop",
        "Hint: set the sum to 0 once"]) for w, a, b, c in (("row", "dy", "dx", "y"), ("column", "dx", "dy", "x"))},
    # blind audit X12 (was '3465 of 3465 pixels are wrong ... Hint: compare your kernel with the
    # TODOs: tile[ty][tx] holds ...', the indices being right): a tile of each thread's own
    "tile_not_shared": ([("    __shared__ float tile[TILE_Y][TILE_X];", "    float tile[TILE_Y][TILE_X];")],
                        ["the kernel never touched shared memory", "declared without __shared__",
                         "declare it __shared__ float tile[TILE_Y][TILE_X]"]),
    # blind audit AUB (was 'the kernel crashed ... extern __shared__ array ... Hint: the grid is
    # rounded up to whole blocks ...'): the tile declared extern, where the launch gives no bytes
    "tile_declared_extern": ([("    __shared__ float tile[TILE_Y][TILE_X];", "    extern __shared__ float tile[];"),
                              ("tile[ty][tx]", "tile[ty * TILE_X + tx]"),
                              ("tile[threadIdx.y + dy][threadIdx.x + dx]", "tile[(threadIdx.y + dy) * TILE_X + threadIdx.x + dx]")],
                             ["the tile is declared extern __shared__ (extern __shared__ float tile[])", "gives no bytes of dynamic shared memory", "wrote outside it at kernel.cu:40",
                              "Hint: declare the tile with its size: __shared__ float tile[TILE_Y][TILE_X]"]),
    "missing_barrier": ([(BARRIER, "")], ["data race on tile[", "__syncthreads()"]),
    # audit E: the tile's origin from the thread's own pixel; the barrier inside the loop over ty;
    # RADIUS added to a window that runs from 0 to 2 * RADIUS
    "origin_from_the_thread": ([("int x0 = blockIdx.x * BLOCK_X - RADIUS;", "int x0 = x - RADIUS;"),
                                ("int y0 = blockIdx.y * BLOCK_Y - RADIUS;", "int y0 = y - RADIUS;")],
                               ["the tile's origin was taken from each thread's own pixel, x0 = x - "
                                "RADIUS and y0 = y - RADIUS", "x0 = blockIdx.x * BLOCK_X - RADIUS"]),
    "barrier_inside_the_loop": ([(LOAD + ";\n" + BARRIER, LOAD + ";\n    " + BARRIER + "    }\n"),
                                 ("    for (int ty = threadIdx.y; ty < TILE_Y; ty += BLOCK_Y)\n",
                                  "    for (int ty = threadIdx.y; ty < TILE_Y; ty += BLOCK_Y) {\n")],
                                ["data race on tile[288]", "second trip round the loop over ty",
                                 "never makes (4 + BLOCK_Y >= TILE_Y)", "after both loops"]),
    "radius_added_twice": ([("sum += tile[threadIdx.y + dy][threadIdx.x + dx];",
                             "sum += tile[threadIdx.y + RADIUS + dy][threadIdx.x + RADIUS + dx];")],
                           ["past the size it was declared with", "read tile column 36 = threadIdx.x + "
                            "RADIUS + dx with dx = 2 * RADIUS", "no RADIUS added"]),
    "two_threads_store_one_element": ([("tile[ty][tx] =", "tile[ty][tx / 2] =")],
                                      ["write-after-write", "each element must be loaded by one"]),
    # audit G11, G12: clamp_index given the last index; the window read at the image's x, y
    "clamp_to_the_last_index": ([(LOAD, "in[clamp_index(y0 + ty, height - 1) * width + "
                                        "clamp_index(x0 + tx, width - 1)]")],
                                ["last row and column were never loaded", "clamp_index(x0 + tx, width)"]),
    # blind audit TQA-box_blur-1 (was '135 of 3465 pixels are wrong ... Hint: ... move the bounds
    # guard after the barrier', the guard being there): only the column clamped to width - 1
    # blind audit TXA-box_blur-1 (was '1530 of 3465 pixels are wrong ... Hint: compare your kernel
    # with the TODOs ...'): the tile's origin clamped before tx (ty) was added
    "column_clamped_before_tx": ([("clamp_index(x0 + tx, width)", "clamp_index(x0, width) + tx")],
                                 ["columns were clamped before tx was added, clamp_index(x0, width) "
                                  "+ tx: the left edge's tiles (x0 = -2, clamped to 0) sit 2 columns "
                                  "right of where they belong", "columns up to 97 of a row of 77",
                                  "pixel (x=0, y=0) came out", "its blur", "clamp the pixel's "
                                  "column, after adding tx: clamp_index(x0 + tx, width)"]),
    "row_clamped_before_ty": ([(LOAD[:31], "in[(clamp_index(y0, height) + ty)")],
                              ["rows were clamped before ty was added", "clamp_index(y0 + ty, height)"]),
    "column_clamped_to_the_last_index": ([("clamp_index(x0 + tx, width)", "clamp_index(x0 + tx, width - 1)")],
                                         ["the image's last column (x = 76) was never loaded",
                                          "clamp_index(x0 + tx, width - 1)",
                                          "Hint: clamp_index's n is the size: clamp_index(x0 + tx, width)"]),
    "row_clamped_to_the_last_index": ([("clamp_index(y0 + ty, height)", "clamp_index(y0 + ty, height - 1)")],
                                      ["the image's last row (y = 44) was never loaded",
                                       "clamp_index(y0 + ty, height - 1)",
                                       "Hint: clamp_index's n is the size: clamp_index(y0 + ty, height)"]),
    "window_at_image_coordinates": ([("sum += tile[threadIdx.y + dy][threadIdx.x + dx];", "sum += tile[y + dy][x + dx];")],
                                    ["Hint: tile was read at column 36, the image's x plus the window's offset",
                                     "not the pixel's x: tile[threadIdx.y + dy]"]),
    "halo_loops_one_short": ([("ty < TILE_Y;", "ty < TILE_Y - 1;"), ("tx < TILE_X;", "tx < TILE_X - 1;")],
                             ["right, bottom edge(s) of their block", "halo"]),
    "right_halo_one_short": ([("tx < TILE_X;", "tx < TILE_X - 1;")],
                             ["of the right edge(s) of their block", "TILE_X"]),
    "tile_starts_one_pixel_late": ([("blockIdx.x * BLOCK_X - RADIUS;", "blockIdx.x * BLOCK_X - RADIUS + 1;")],
                                   ["the blur of the pixel at (x+1, y+0): the tile's origin was "
                                    "x0 = blockIdx.x * BLOCK_X - RADIUS + 1",
                                    "Hint: x0 = blockIdx.x * BLOCK_X - RADIUS"]),
    # blind audit TA1 (was 'each pixel got the blur of the pixel at (x+2, y+2): the tile or the
    # window is shifted ... Hint: tile[ty][tx] holds ... and this thread's own pixel is ...')
    "tile_origin_without_radius": ([("BLOCK_X - RADIUS;", "BLOCK_X;"), ("BLOCK_Y - RADIUS;", "BLOCK_Y;")],
                                   ["the blur of the pixel at (x+2, y+2): the tile's origin was "
                                    "x0 = blockIdx.x * BLOCK_X and y0 = blockIdx.y * BLOCK_Y, "
                                    "- RADIUS left out", "Hint: x0 = blockIdx.x * BLOCK_X - "
                                    "RADIUS and y0 = blockIdx.y * BLOCK_Y - RADIUS"]),
    # blind audit TOA-box_blur-1: + RADIUS in y0 (was 'row r of out holds the right values of
    # row r + 4: an index is off by 4 ... Hint: tile[ty][tx] holds ...', y0's sign not named)
    "tile_row_origin_plus_radius": ([("int y0 = blockIdx.y * BLOCK_Y - RADIUS;",
                                      "int y0 = blockIdx.y * BLOCK_Y + RADIUS;")],
                                    ["the blur of the pixel at (x+0, y+4): the tile's origin was "
                                     "y0 = blockIdx.y * BLOCK_Y + RADIUS, RADIUS added where it is "
                                     "subtracted", "Hint: y0 = blockIdx.y * BLOCK_Y - RADIUS"]),
    "window_one_short": ([("dx <= 2 * RADIUS", "dx < 2 * RADIUS")], ["the window is 4 x 5 pixels", "both included (<=)"]),
    "zeros_outside_the_image": ([(LOAD, "((y0 + ty) >= 0 && (y0 + ty) < height && (x0 + tx) >= 0 "
                                        "&& (x0 + tx) < width ? in[(y0 + ty) * width + x0 + tx] "
                                        ": 0.0f)")],
                                ["count as 0", "clamp"]),
    "edges_not_clamped": ([(LOAD, "in[(y0 + ty) * width + (x0 + tx)]")], ["edges of the image", "clamp its column"]),
    # blind audit AF (was '... all within RADIUS of the edges of the image ... Hint: ... clamp its
    # column ...', where it was clamped): the flat index clamped, not its row and column each
    "flat_index_clamped": ([(LOAD, "in[clamp_index((y0 + ty) * width + (x0 + tx), width * height)]")],
                           ["clamped as one flat index, clamp_index((y0 + ty) * width + (x0 + tx), "
                            "width * height)", "wraps into the neighbouring row",
                            "Hint: clamp the row and the column each"]),
    "return_before_loading": ([(GUARD, ""), (EARLY, GUARD + EARLY)],
                              ["near the right or bottom edge of the image", "after the barrier"]),
    "no_bounds_guard": ([(GUARD, "")], ["past the end", "return"]),
    # audit TVA-box_blur-1: named as the missing y test, not as a guard joined with &&
    "guard_on_x_only": ([("if (x >= width || y >= height)", "if (x >= width)")],
                        ["the guard tests only x: the threads in rows 45 to 47, below the 77 x 45 image",
                         "return the threads with y >= height as well"]),
    "y_against_the_width": ([("if (x >= width || y >= height)", "if (x >= width || y >= width)")],
                            ["the guard compares y with width (y >= width) where height belongs",
                             "rows 45 to 47, below the 77 x 45 image",
                             "compare y with height, not width: the grid is rounded up"]),
    "bounds_guard_off_by_one": ([("x >= width || y >= height", "x > width || y > height")],
                                ["off by one", "(width - 1, height - 1)"]),
    "stores_into_the_next": ([("out[y * width + x] =", "out[y * width + x + 1] =")],
                             ["one too far, the guard is right", "out[y * width + x]"]),
    "sum_not_divided": ([(MEAN, "")], ["25 times too large", "divide the sum"]),
    # blind audit AB (was '25 times too large ... Hint: divide the sum ...'): sum / 5 * 5, left to right
    "divided_then_multiplied_back": ([(MEAN, " / (2 * RADIUS + 1) * (2 * RADIUS + 1)")],
                                     ["the window's plain sum: sum / (2 * RADIUS + 1) * (2 * RADIUS + 1) divides by",
                                      "/ and * go left to right", "Hint: the divisor needs its own parentheses: sum / (("]),
    # issue 28: named as themselves, not with the bounds guard's or the tile index's hint
    "tile_declared_too_small": ([("__shared__ float tile[TILE_Y][TILE_X];",
                                  "__shared__ float tile[BLOCK_Y][BLOCK_X];")],
                                ["past the size it was declared with", "tile needs TILE_Y x TILE_X"]),
    # blind audit AD (was 'the kernel crashed: thread (30, 0, 0) ... declared with (index 34) ... Hint: ...
    # declare __shared__ float tile[TILE_Y][TILE_X]', as it was): the halo counted on one side only
    "tile_halo_on_one_side": ([(f"(BLOCK_{c} + 2 * RADIUS)", f"(BLOCK_{c} + RADIUS)") for c in "XY"],
                              ["tile's rows are TILE_X = 34 floats long, BLOCK_X + RADIUS: the halo counted on one side",
                               "thread (30, 0, 0) of block (0, 0, 0) read tile column 34", "Hint: the halo is RADIUS on "
                               "every side: #define TILE_X (BLOCK_X + 2 * RADIUS) and TILE_Y (BLOCK_Y + 2 * RADIUS)"]),
    "integer_division": ([("sum * (1.0f / ((2 * RADIUS + 1) * (2 * RADIUS + 1)))",
                           "sum * (1 / ((2 * RADIUS + 1) * (2 * RADIUS + 1)))")],
                         ["integer division", "1.0f"]),
    "sum_an_int": ([("float sum = 0.0f;", "int sum = 0;")], ["or the sum is an int", "keep the sum a float"]),
    "clamp_lets_n_through": ([("min(max(i, 0), n - 1)", "min(max(i, 0), n)")],
                             ["the clamp lets index n through", "min(max(i, 0), n - 1)"]),
    # blind audit AT (was '3465 of 3465 pixels are wrong ... Hint: compare your kernel with the
    # TODOs: tile[ty][tx] holds ...', the clamp not named): min and max swapped in clamp_index,
    # which then gives n - 1 (or 0) for every index: every pixel the image's last (first) pixel
    "clamp_min_max_swapped": ([("min(max(i, 0), n - 1)", "max(min(i, 0), n - 1)")],
                              ["every pixel came out", "the image's last pixel (x=76, y=44)",
                               "clamp_index returned n - 1 for every index",
                               "Hint: clamp i up to 0 first, then down to n - 1: min(max(i, 0), n - 1)"]),
    "clamp_bounds_swapped": ([("min(max(i, 0), n - 1)", "min(max(i, n - 1), 0)")],
                             ["the image's first pixel (x=0, y=0)", "clamp_index returned 0 for every index",
                              "Hint: clamp i up to 0 first, then down to n - 1: min(max(i, 0), n - 1)"]),
    # blind audit AT (was '3465 of 3465 pixels are wrong ... Hint: compare your kernel with the
    # TODOs ...'): the row and the column swapped in the load's flat index, the image read transposed
    "load_rows_cols_swapped": ([(LOAD, "in[clamp_index(x0 + tx, width) * height + clamp_index(y0 + ty, height)]")],
                               ["the tile was loaded from in[x * height + y]", "column after column",
                                "Hint: the image is stored row after row: pixel (x, y) is at y * width + x",
                                "in[clamp_index(y0 + ty, height) * width + clamp_index(x0 + tx, width)]"]),
    "loaded_with_rows_of_height": ([("clamp_index(y0 + ty, height) * width", "clamp_index(y0 + ty, height) * height")],
                                   ["the tile was loaded with rows of height pixels",
                                    "clamp_index(y0 + ty, height) * width"]),
    # blind audit AJ (was '3465 of 3465 pixels are wrong ... Hint: compare your kernel with the
    # TODOs'): the input's rows taken TILE_X floats apart, the tile's row length, not width
    "loaded_with_rows_of_tile_x": ([("clamp_index(y0 + ty, height) * width", "clamp_index(y0 + ty, height) * TILE_X")],
                                   ["the tile was loaded with rows of TILE_X = 36 pixels: in[row * TILE_X + column], "
                                    "where a row of the image holds width = 77",
                                    "Hint: TILE_X is the tile's row length; the image's rows are width floats apart: load "
                                    "in[clamp_index(y0 + ty, height) * width"]),
    # blind audit AQ (was '1617 pixels are NaN: their windows read tile elements no thread loaded
    # ... Hint: load every element of the tile: its loops run while ty < TILE_Y and tx < TILE_X,
    # stepping by BLOCK_Y and BLOCK_X', the step not named): the rows' loop steps by BLOCK_X
    "tile_rows_step_by_block_x": ([("ty += BLOCK_Y", "ty += BLOCK_X")],
                                  ["the loop over the tile's rows steps ty by BLOCK_X = 32, so from "
                                   "ty = threadIdx.y it makes one trip: each thread loaded only tile "
                                   "row threadIdx.y, and rows 8 to 11 were never loaded",
                                   "1617 pixels' windows read them",
                                   "Hint: the block has BLOCK_Y = 8 rows of threads, which between them "
                                   "load the tile's TILE_Y = 12 rows: step ty by BLOCK_Y, for (int ty "
                                   "= threadIdx.y; ty < TILE_Y; ty += BLOCK_Y)"]),
    "tile_columns_step_by_tile_x": ([("tx += BLOCK_X", "tx += TILE_X")],
                                    ["the loop over the tile's columns steps tx by TILE_X = 36, so "
                                     "from tx = threadIdx.x it makes one trip: each thread loaded "
                                     "only tile column threadIdx.x, and columns 32 to 35 were never "
                                     "loaded", "Hint: the block has BLOCK_X = 32 columns of "
                                     "threads, which between them load the tile's TILE_X = 36 "
                                     "columns: step tx by BLOCK_X"]),
    "tile_rows_below_block_y": ([("ty < TILE_Y; ty += BLOCK_Y", "ty < BLOCK_Y; ty += BLOCK_Y")],
                                ["the loop over the tile's rows runs while ty < BLOCK_Y = 8, not "
                                 "TILE_Y = 12, so from ty = threadIdx.y it makes one trip",
                                 "rows 8 to 11 were never loaded", "Hint: the block has BLOCK_Y"]),
    # blind audit L6: the load stored at the thread's own slot (was '1809 pixels are NaN: their
    # windows read tile elements no thread loaded ... Hint: load every element of the tile: its
    # loops run while ty < TILE_Y and tx < TILE_X, stepping by BLOCK_Y and BLOCK_X', loops right)
    "tile_stored_at_the_threads_slot": ([("            tile[ty][tx] = in[",
                                          "            tile[threadIdx.y][threadIdx.x] = in[")],
                                        ["each thread stored every pixel it loaded at its own "
                                         "slot, tile[threadIdx.y][threadIdx.x]", "1809 pixels",
                                         "Hint: store each load where the loops say, tile[ty]"
                                         "[tx] = in[...]"]),
    # blind audit AG (was 'the flat loop that loads the tile splits its index as ty = k / BLOCK_Y
    # ...', a loop the kernel has not): the tile declared with its sides swapped, indexed rows first
    "tile_declared_sides_swapped": ([("__shared__ float tile[TILE_Y][TILE_X];",
                                      "__shared__ float tile[TILE_X][TILE_Y];")],
                                    ["tile was declared with its sides swapped, [TILE_X][TILE_Y]: its "
                                     "rows are TILE_Y = 12 floats long", "thread (0, 0, 0) of block "
                                     "(0, 0, 0) reached column 32", "Hint: declare it rows first, as it "
                                     "is indexed: __shared__ float tile[TILE_Y][TILE_X]"]),
    # blind audit AI (was '... indexed an array past the size it was declared with (index 16) ...
    # Hint: tile is declared as it should be, [12][36] ... tile[row][column] takes the row first,
    # tile[threadIdx.y + dy][threadIdx.x + dx]', the window blamed): the load loops' bounds swapped
    "tile_loop_bounds_swapped": ([("ty < TILE_Y; ty += BLOCK_Y", "ty < TILE_X; ty += BLOCK_Y"),
                                  ("tx < TILE_X; tx += BLOCK_X", "tx < TILE_Y; tx += BLOCK_X")],
                                 ["thread (0, 0, 0) of block (0, 0, 0) reached tile row 16",
                                  "past the tile's 12 rows", "the loop over the rows (ty += "
                                  "BLOCK_Y) runs while ty < TILE_X", "the bounds swapped",
                                  "Hint: rows go to TILE_Y and columns to TILE_X: for (int ty = "
                                  "threadIdx.y; ty < TILE_Y; ty += BLOCK_Y)"]),
    "tile_indices_swapped": ([("tile[threadIdx.y + dy][threadIdx.x + dx]",
                               "tile[threadIdx.x + dx][threadIdx.y + dy]")],
                             ["indexed an array past the size", "tile[row][column] takes the row"]),
    # audit B: a negative tile index, the store transposed, the clamp's sides swapped
    "window_from_minus_radius": ([("for (int dy = 0; dy <= 2 * RADIUS; dy++)",
                                   "for (int dy = -RADIUS; dy <= RADIUS; dy++)"),
                                  ("for (int dx = 0; dx <= 2 * RADIUS; dx++)",
                                   "for (int dx = -RADIUS; dx <= RADIUS; dx++)")],
                                 ["index into tile came out -2", "threadIdx.y + RADIUS + dy"]),
    "store_transposed": ([("out[y * width + x] =", "out[x * height + y] =")],
                         ["out[x * height + y]", "out[y * width + x]"]),
    "clamp_sides_swapped": ([(LOAD, "in[clamp_index(y0 + ty, width) * width + "
                                    "clamp_index(x0 + tx, height)]")],
                            ["rows were clamped to the width", "clamp_index(y0 + ty, height)"]),
    # blind audit TLA-box_blur-1: the row clamped to the width, a copy slip (was '154 of 3465
    # pixels are wrong ... all near the right or bottom edge of the image. Hint: ... move the
    # bounds guard after the barrier', a guard already after it)
    "row_clamped_to_the_width": ([(LOAD, "in[clamp_index(y0 + ty, width) * width + "
                                         "clamp_index(x0 + tx, width)]")],
                                 ["the tile's rows were clamped to the width, clamp_index(y0 + ty, "
                                  "width): rows past height - 1 = 44 went through, up to width - 1 "
                                  "= 76", "Hint: clamp the row to the height: clamp_index(y0 + ty, "
                                  "height)"]),
    # audit B (second round): the store's rows of height pixels, the tx loop stepping by BLOCK_Y
    "store_rows_of_height": ([("out[y * width + x] =", "out[y * height + x] =")],
                             ["a row was taken as height = 45 pixels long, not width = 77",
                              "y * width + x"]),
    # blind audit AK (was '... a data race on tile[0] ... Hint: two threads store into the same
    # element of the shared array: ... check its indices and the loops' steps'): the loop over
    # the tile's rows started at 0 for every thread, not at threadIdx.y
    "tile_rows_from_0": ([("    for (int ty = threadIdx.y; ty < TILE_Y; ty += BLOCK_Y)\n",
                           "    for (int ty = 0; ty < TILE_Y; ty += BLOCK_Y)\n")],
                         ["data race on tile[0]", "every row of threads stored the same rows of the "
                          "tile, 0 and 8", "the loop over ty starts at 0, not at threadIdx.y",
                          "rows 1 to 7 and 9 to 11 are never loaded", "Hint: start the loop over "
                          "the tile's rows at the thread's row, as the loop over tx starts at its "
                          "column: for (int ty = threadIdx.y; ty < TILE_Y; ty += BLOCK_Y)"]),
    "tx_steps_by_block_y": ([("tx += BLOCK_X", "tx += BLOCK_Y")],
                            ["data race on tile[", "the loop over tx steps by BLOCK_Y",
                             "tx += BLOCK_X"]),
    # audit 2 (a near miss, helpers.exercises.near): ^ read as a power, (2R + 1) ^ 2 is 7
    "xor_for_a_square": ([("sum" + MEAN, "sum / ((2 * RADIUS + 1) ^ 2)")],
                         ["every element of out is 3.571 (25/7) times the right value",
                          "^ is exclusive or"]),
    # mutation audit: models of a tiled blur (_tiled) whose tile's origin came from another index,
    # whose window lies elsewhere in the tile or spans other rows or columns, whose loop starts late
    # blind audit P6: the tile's origin steps by the tile's width (was 'only the first 32 columns
    # of each row of out are right ..., computed from other inputs ... Hint: ... check the indices
    # of the loads that feed them')
    # blind audit AE (was '360 of 3465 pixels were never written (the first is x = 32, y = 0)
    # ... Hint: every pixel needs a thread: x = ..., y = ...; and the guard ...'): the output's
    # column steps by TILE_X, the tile's width, not BLOCK_X; and its mirror down the rows
    "x_steps_by_tile_x": ([("int x = blockIdx.x * BLOCK_X", "int x = blockIdx.x * TILE_X")],
                          ["block (1, 0)'s pixels start at x = 36, not 32: x = blockIdx.x * TILE_X + "
                           "threadIdx.x steps from one block to the next by TILE_X = 36",
                           "so columns 32 to 35 and 68 to 71 got no thread",
                           "the pixel written at x = 36 holds the blur of x = 32",
                           "Hint: a block computes BLOCK_X x BLOCK_Y pixels",
                           "x = blockIdx.x * BLOCK_X + threadIdx.x"]),
    "y_steps_by_tile_y": ([("int y = blockIdx.y * BLOCK_Y", "int y = blockIdx.y * TILE_Y")],
                          ["block (0, 1)'s pixels start at y = 12, not 8: y = blockIdx.y * TILE_Y + "
                           "threadIdx.y steps", "so rows 8 to 11, 20 to 23, 32 to 35",
                           "y = blockIdx.y * BLOCK_Y + threadIdx.y"]),
    "tile_origin_steps_by_tile_x": ([("int x0 = blockIdx.x * BLOCK_X", "int x0 = blockIdx.x * TILE_X")],
                                    ["the tile's origin x0 stepped by TILE_X",
                                     "x0 = blockIdx.x * BLOCK_X - RADIUS"]),
    # blind audit TFA-box_blur-1: the row origin scaled by BLOCK_X (was 'only the first 8 rows of
    # out are right (rows 8 to 44 are wrong), computed from other inputs ... Hint: ... check the
    # indices of the loads that feed them'); and its mirror, the column origin by BLOCK_Y
    "tile_y0_scaled_by_block_x": ([("int y0 = blockIdx.y * BLOCK_Y", "int y0 = blockIdx.y * BLOCK_X")],
                                  ["the tile's row origin y0 was scaled by BLOCK_X (32) where "
                                   "BLOCK_Y (8) belongs", "y0 = blockIdx.y * BLOCK_Y - RADIUS"]),
    "tile_x0_scaled_by_block_y": ([("int x0 = blockIdx.x * BLOCK_X", "int x0 = blockIdx.x * BLOCK_Y")],
                                  ["the tile's column origin x0 was scaled by BLOCK_Y (8) where "
                                   "BLOCK_X (32) belongs", "x0 = blockIdx.x * BLOCK_X - RADIUS"]),
    "tile_x0_from_blockIdx_y": ([("int x0 = blockIdx.x * BLOCK_X", "int x0 = blockIdx.y * BLOCK_X")],
                                ["the tile's origin x0 was computed from blockIdx.y",
                                 "x0 = blockIdx.x * BLOCK_X - RADIUS"]),
    "tile_y0_from_threadIdx_y": ([("int y0 = blockIdx.y * BLOCK_Y", "int y0 = threadIdx.y * BLOCK_Y")],
                                 ["the tile's origin y0 was computed from threadIdx.y",
                                  "y0 = blockIdx.y * BLOCK_Y - RADIUS"]),
    "window_rows_from_1": ([("for (int dy = 0;", "for (int dy = 1;")],
                           ["the window's rows run from y - 1 to y + 2, 4 rows",
                            "for (int dy = 0; dy <= 2 * RADIUS; dy++)"]),
    "window_columns_to_radius": ([("dx <= 2 * RADIUS", "dx <= RADIUS")],
                                 ["the window's columns run from x - 2 to x, 3 columns",
                                  "for (int dx = 0; dx <= 2 * RADIUS; dx++)"]),
    "window_column_from_threadIdx_y": ([("tile[threadIdx.y + dy][threadIdx.x + dx]",
                                         "tile[threadIdx.y + dy][threadIdx.y + dx]")],
                                       ["window was read from the wrong place in the tile, "
                                        "tile[threadIdx.y + dy][threadIdx.y + dx]",
                                        "its window tile[threadIdx.y + dy][threadIdx.x + dx]"]),
    # blind audit TNA-box_blur-1 (was '3465 of 3465 pixels are wrong ... Hint: compare your
    # kernel with the TODOs ...'): dy for dx in the window's column, the tile's diagonal
    "window_column_offset_dy": ([("[threadIdx.x + dx]", "[threadIdx.x + dy]")],
                                ["each pixel's window was the tile's diagonal from its corner, "
                                 "each of its 5 pixels read 5 times: the row and the column took "
                                 "the same offset, tile[threadIdx.y + dy][threadIdx.x + dy]",
                                 "the column's offset is dx: tile[threadIdx.y + dy][threadIdx.x "
                                 "+ dx]"]),
    "tile_loop_from_threadIdx_x_plus_1": ([("int tx = threadIdx.x;", "int tx = threadIdx.x + 1;")],
                                          ["the tile's first column was not loaded",
                                           "for (int tx = threadIdx.x; tx < TILE_X"]),
    # blind audit J6 (was 'the kernel crashed: ... indexed an array past the size it was
    # declared with (index 12) at ...:40 ... Hint: tile is declared as it should be, [12][36], ...
    # tile[row][column] takes the row first, tile[threadIdx.y + dy][threadIdx.x + dx]'): the flat
    # load's index split by the block's width, or another number, where the tile's belongs
    **{f"flat_load_split_{how}": ([(TWO_LOOPS, FLAT_LOOP.replace("k / TILE_X, tx = k % TILE_X", split)),
                                   (LOAD + ";\n", LOAD + ";\n    }\n")],
                                  [f"the flat loop that loads the tile splits its index as ty = {split}: "
                                   f"thread ({thread}, 0)'s k = {k} gave tile row {row}, past the "
                                   "tile's 12 rows", "split the flat index by the tile's width: "
                                   "ty = k / TILE_X, tx = k % TILE_X"])
       for how, split, thread, k, row in (
           ("by_block_x", "k / BLOCK_X, tx = k % BLOCK_X", "0, 4", 384, 12),
           ("by_tile_y", "k / TILE_Y, tx = k % TILE_Y", "0, 0", 256, 21))},
}

# Right but slow: PASS, not FAST (name: (replacements, words of what keeps it from FAST))
SLOW = {
    "window_from_global_memory": ([("tile[threadIdx.y + dy][threadIdx.x + dx]",
                                    "in[clamp_index(y - RADIUS + dy, height) * width + "
                                    "clamp_index(x - RADIUS + dx, width)]")],
                                  ["load requests to global memory", "not from the tile"]),
    "tile_transposed": ([("__shared__ float tile[TILE_Y][TILE_X];",
                          "__shared__ float tile[TILE_X][TILE_Y];"),
                         ("tile[ty][tx] =", "tile[tx][ty] ="),
                         ("tile[threadIdx.y + dy][threadIdx.x + dx]",
                          "tile[threadIdx.x + dx][threadIdx.y + dy]")],
                        ["bank conflicts a request", "along a row"]),
}

# Right, but not the solution's way: each must pass
RIGHT = {
    "padded_tile_divided_by_25": [("tile[TILE_Y][TILE_X];", "tile[TILE_Y][TILE_X + 1];"),
                                  ("sum" + MEAN, "sum / 25.0f")],
    "tile_loaded_by_a_flat_loop": [(TWO_LOOPS, FLAT_LOOP), (LOAD + ";\n", LOAD + ";\n    }\n")],
}
