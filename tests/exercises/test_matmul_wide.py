"""The non-square tile checker (helpers.exercises.matmul_wide) of notebook 08: the solution and
right kernels written another way pass, the stub fails, and each known mistake gets its own
verdict. All variants are compiled as one module (and, on PyCUDA, once more on the simulator,
whose race check the checker uses)."""

import pytest

from kernel_sources import compile_variant_pairs, simulator_only, solution, variant

from helpers.exercises import matmul_wide as checker

KERNEL = solution("matmul_wide.cu")
B_LOAD = ("        for (int r = ty; r < TILE_K; r += TILE_M) {\n"
          "            int b_row = phase * TILE_K + r;\n"
          "            Bs[r][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;\n"
          "        }\n")
FIRST_BARRIER = "        }\n        __syncthreads();\n"
SECOND_BARRIER = "            sum += As[ty][k] * Bs[k][tx];\n        __syncthreads();\n"

# name: (replacements, {field: words that the verdict's field must contain})
WRONG = {
    # blind audit TB-matmul_wide-1: the loop's rows of B all stored into the stub's Bs[ty][tx]
    # (was 'on the simulator, which fills shared memory with NaN, C holds NaN: the products read
    # elements of Bs that no thread loaded ... Hint: ... into Bs[r][tx]', the store not named)
    "bs_stored_at_ty": ([("Bs[r][tx] = (b_row < K", "Bs[ty][tx] = (b_row < K")],
                        {"problem": "every thread stored its 4 rows of B into Bs[ty][tx], its own "
                                    "row ty of Bs",
                         "hint": "store each row where the loop's r says: Bs[r][tx] ="}),
    # blind audit TPB-matmul_wide-1: As read k-major like Bs, As[k][ty] (was 'the kernel crashed
    # ... indexed an array past the size it was declared with (index 8) at matmul_wide.cu:27' and
    # both tiles' shapes restated)
    "as_read_k_major": ([("sum += As[ty][k] * Bs[k][tx];", "sum += As[k][ty] * Bs[k][tx];")],
                        {"problem": "(thread (0, 0, 0) of block (0, 0, 0)), past its TILE_M = 8 "
                                    "rows: an index that runs over k, to TILE_K = 32, was put first",
                         "hint": "sum += As[ty][k] * Bs[k][tx]"}),
    # blind audit F6: B's column taken as tx, the block's offset forgotten (a near miss before)
    "b_column_from_tx": ([("B[b_row * N + col]", "B[b_row * N + tx]")],
                         {"problem": "B's tile was read from column tx, not col",
                          "hint": "Bs[r][tx] = B[b_row * N + col]"}),
    # blind audit TYB-matmul_wide-1: sum declared int, each add cut to a whole number (was 'C
    # is all zeros: the products added nothing (a tile that was never loaded, or sum never added
    # to)', blaming loads and adds the kernel has)
    "sum_declared_int": ([("float sum = 0.0f;", "int sum = 0;")],
                         {"problem": "sum is declared int: each add's result is cut toward 0",
                          "hint": "declare sum float, as the values it adds are: float sum = 0.0f;"}),
    # blind audit W2: A's column without the phase's offset (was the catch-all 'C is wrong')
    "a_column_from_tx": ([("A[row * K + a_col]", "A[row * K + tx]")],
                         {"problem": "every phase read A's first TILE_K columns again",
                          "hint": "A's column is phase * TILE_K + tx"}),
    # blind audit AF (was '3465 of the 3465 elements of C are wrong ... which loaded A[0], A[32]
    # and A[64], ...' and the plan): the tiles loaded under an if with no else, so the last
    # phase's slots past K keep the phase before's elements
    "loads_guarded_without_else": ([("As[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;",
                                     "if (row < M && a_col < K)\n            As[ty][tx] = A[row * K + a_col];"),
                                    ("Bs[r][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;",
                                     "if (b_row < K && col < N)\n                Bs[r][tx] = B[b_row * N + col];")],
                                   {"problem": "in the last phase (k = 64 to 95, K = 70) As[ty][6..31] "
                                               "and Bs[6..31][tx] were not written, so they still held "
                                               "the phase before's elements (A[row][38..63], "
                                               "B[38..63][col])",
                                    "hint": "store 0.0f where the guard fails: As[ty][tx] = (row < M "
                                            "&& a_col < K) ? A[row * K + a_col] : 0.0f"}),
    "a_row_from_ty": ([("A[row * K + a_col]", "A[ty * K + a_col]")],
                      {"problem": "A's tile was read from row ty, not row",
                       "hint": "As[ty][tx] = A[row * K + a_col]"}),
    # audit 3: a model after the near misses
    "multiply_adds_from_k_1": ([("int k = 0; k < TILE_K", "int k = 1; k < TILE_K")],
                               {"problem": "each phase leaves out its first product",
                                "hint": "for (int k = 0; k < TILE_K; k++)"}),
    # blind audit O2 (was '3465 of the 3465 elements of C are wrong ...' and the general hint)
    "multiply_adds_from_ty_by_8": ([("for (int k = 0; k < TILE_K; k++)",
                                     "for (int k = ty; k < TILE_K; k += TILE_M)")],
                                   {"problem": "started at k = ty and stepped by TILE_M = 8",
                                    "hint": "for (int k = 0; k < TILE_K; k++)"}),
    "multiply_adds_8_deep": ([("k < TILE_K; k++)", "k < TILE_M; k++)")],
                             {"problem": "8 of every 32 products", "hint": "k < TILE_K"}),
    "one_row_of_bs_a_thread": ([(B_LOAD, "        int b_row = phase * TILE_K + ty;\n"
                                         "        Bs[ty][tx] = (b_row < K && col < N) ? "
                                         "B[b_row * N + col] : 0.0f;\n")],
                               {"problem": "no thread loaded", "hint": "ty + 8, ty + 16"}),
    # blind audit AJ (was '... C holds NaN: the products read elements of Bs that no thread loaded
    # ... Hint: ... each thread loads rows r = ty, ty + 8, ...', as it did): a return before the
    # phase loop for the threads outside C, which skip their loads and the barriers
    "return_before_the_loop": ([("    float sum = 0.0f;\n", "    if (row >= M || col >= N)\n"
                                 "        return;\n    float sum = 0.0f;\n"),
                                ("    if (row < M && col < N)\n        C[", "    C[")],
                               {"problem": "C is right in every whole 8 x 32 tile and wrong in ",
                                "hint": "guard only the store, if (row < M && col < N)"}),
    "no_barrier_after_the_loads": ([(FIRST_BARRIER, "        }\n")],
                                   {"problem": "data race on ", "hint": "__syncthreads()"}),
    "no_barrier_after_the_products": ([(SECOND_BARRIER, "            sum += As[ty][k] * Bs[k][tx];\n")],
                                      {"problem": "data race on ", "hint": "__syncthreads()"}),
    "phases_rounded_down": ([("phase < (K + TILE_K - 1) / TILE_K;", "phase < K / TILE_K;")],
                            {"problem": "partial phase is missing", "hint": "rounded up"}),
    # blind audit AE (was 'the last, partial phase is missing ... Hint: ... rounded up', as it
    # was): the phase count taken from N, not K
    "phases_from_n": ([("phase < (K + TILE_K - 1) / TILE_K;", "phase < (N + TILE_K - 1) / TILE_K;")],
                      {"problem": "the phase count came from N = 31 (1 phase), not from K = 33",
                       "hint": "phase < (K + TILE_K - 1) / TILE_K"}),
    "phases_from_m": ([("phase < (K + TILE_K - 1) / TILE_K;", "phase < (M + TILE_K - 1) / TILE_K;")],
                      {"problem": "the phase count came from M = 45 (2 phases), not from K = 70",
                       "hint": "the phases run along k, over K"}),
    "b_rows_k_apart": ([("B[b_row * N + col]", "B[b_row * K + col]")],
                       {"problem": "K elements apart", "hint": "B[b_row * N + col]"}),
    # blind audit TKB-matmul_wide-1: B read as stored by columns, matmul_bt's layout (was '3464 of
    # the 3465 elements of C are wrong ...' with a trace and every load's formula as the hint)
    "b_read_by_columns": ([("B[b_row * N + col]", "B[col * K + b_row]")],
                          {"problem": "B was read as if stored by columns, B[col * K + b_row]",
                           "hint": "Bs[r][tx] = B[(phase * TILE_K + r) * N + col]"}),
    # blind audit B: a phase's step along k taken from TILE_M, in B's rows or in A's columns
    "b_rows_step_by_tile_m": ([("int b_row = phase * TILE_K + r;", "int b_row = phase * TILE_M + r;")],
                              {"problem": "B's tile starts at row phase * TILE_M",
                               "hint": "b_row = phase * TILE_K + r"}),
    "a_columns_step_by_tile_m": ([("int a_col = phase * TILE_K + tx;", "int a_col = phase * TILE_M + tx;")],
                                 {"problem": "A's tile starts at column phase * TILE_M",
                                  "hint": "a_col = phase * TILE_K + tx"}),
    "a_tile_from_column_phase": ([("int a_col = phase * TILE_K + tx;", "int a_col = phase + tx;")],
                                 {"problem": "starts at column phase", "hint": "phase * TILE_K + tx"}),
    # blind audit AQ (was '3465 of the 3465 elements of C are wrong ... which loaded A[0], A[32]
    # and A[64], ...' and the whole kernel as the hint): A's column from ty where tx belongs
    "a_column_from_ty": ([("int a_col = phase * TILE_K + tx;", "int a_col = phase * TILE_K + ty;")],
                         {"problem": "A's tile was loaded at column phase * TILE_K + ty: a_col took "
                                     "ty where tx belongs, so every element of row ty of As held "
                                     "the same element of A",
                          "hint": "int a_col = phase * TILE_K + tx"}),
    # blind audit QQ Q3: the same C as bs_read_across, told by the trace's stores into Bs (was
    # 'the products read Bs[tx][k]' with the product line, which is right, as the hint)
    "bs_stored_transposed": ([("Bs[r][tx] = (b_row", "Bs[tx][r] = (b_row")],
                             {"problem": "B's tile was stored transposed: thread (tx, ty) wrote "
                              "Bs[tx][r]", "hint": "Bs[r][tx] = B[b_row * N + col]"}),
    # blind audit TNB-matmul_wide-1: the products read Bs at C's global column (was 'the kernel
    # crashed: thread (0, 0, 0) of block (1, 0, 0) indexed an array past the size it was declared
    # with (index 32) at matmul_wide.cu:27 ... Hint: As is TILE_M x TILE_K (8 x 32) and Bs TILE_K x
    # TILE_N (32 x 32): a thread's rows of Bs are r = ty, ...', col not named)
    "bs_read_at_col": ([("sum += As[ty][k] * Bs[k][tx];", "sum += As[ty][k] * Bs[k][col];")],
                       {"problem": "Bs[k][col] reads Bs at C's global column col = blockIdx.x * "
                                   "TILE_N + tx: thread (0, 0, 0) of block (1, 0, 0) read column 32",
                        "hint": "Bs holds the block's 32 columns, a thread's at its place in the "
                                "tile: sum += As[ty][k] * Bs[k][tx]"}),
    "bs_read_across": ([("sum += As[ty][k] * Bs[k][tx];", "sum += As[ty][k] * Bs[tx][k];")],
                       {"problem": "Bs[tx][k]", "hint": "Bs[k][tx]"}),
    # blind audit TJB-matmul_wide-1: Bs read at column ty (was '3329 of the 3465 elements of C
    # are wrong ...' with a trace of Bs[0] to Bs[992] and the whole recipe as the hint)
    "bs_read_at_column_ty": ([("sum += As[ty][k] * Bs[k][tx];", "sum += As[ty][k] * Bs[k][ty];")],
                             {"problem": "the products read Bs[k][ty], Bs at column ty",
                              "hint": "sum += As[ty][k] * Bs[k][tx]"}),
    # blind audit TSB-matmul_wide-1: C's rows stored K apart, matmul_bt's row length (was '308 of
    # 3465 elements were never written ... Hint: every element needs a thread: row = ..., col =
    # ...; and the guard col < N && row < M', pointing at coverage, not the store)
    "c_rows_k_apart": ([("C[row * N + col] = sum;", "C[row * K + col] = sum;")],
                       {"problem": "C's rows were stored K = 70 elements apart, C[row * K + col]",
                        "hint": "a row of C is N elements long: C[row * N + col] = sum"}),
    # blind audit AI (was 'the guard stops only the threads outside in both col and row (&&) ...
    # Hint: a thread outside in either must return (||) ...', worded for a return the kernel does
    # not have): the store's condition joined with ||, if (row < M || col < N)
    "store_guard_with_or": ([("if (row < M && col < N)", "if (row < M || col < N)")],
                            {"problem": "the store's condition if (row < M || col < N) at line ",
                             "hint": "store only where both are inside: if (row < M && col < N)"}),
    "no_store_guard": ([("    if (row < M && col < N)\n        C[", "    C[")],
                       {"problem": "wrote past the end of C", "hint": "row < M && col < N"}),
    # blind audit TDB-matmul_wide-1: col stepping by TILE_M (was 'the elements written are those
    # a kernel with col and row swapped reaches', which this kernel's written elements matched)
    "col_steps_by_tile_m": ([("int col = blockIdx.x * TILE_N + tx;", "int col = blockIdx.x * TILE_M + tx;")],
                            {"problem": "col steps by TILE_M = 8 from one block to the next",
                             "hint": "col = blockIdx.x * TILE_N + tx"}),
    # blind audit AD (was '1617 of 3465 elements were never written ... Hint: every element
    # needs a thread: row = ..., col = ...; and the guard ...'): blockIdx.x and blockIdx.y
    # swapped in row and col
    "block_indices_swapped": ([("int row = blockIdx.y * TILE_M + ty;", "int row = blockIdx.x * TILE_M + ty;"),
                               ("int col = blockIdx.x * TILE_N + tx;", "int col = blockIdx.y * TILE_N + tx;")],
                              {"problem": "row took blockIdx.x and col blockIdx.y, swapped: the "
                                          "grid's x, 3 blocks, runs across C's 77 columns and its "
                                          "y, 6 blocks, down its 45 rows",
                               "hint": "row = blockIdx.y * TILE_M + ty, col = blockIdx.x * TILE_N + tx"}),
    "row_steps_by_tile_n": ([("int row = blockIdx.y * TILE_M + ty;", "int row = blockIdx.y * TILE_N + ty;")],
                            {"problem": "row reaches stepping by the block's width",
                             "hint": "blockIdx.y * TILE_M"}),
    # past A when N > K (the first case): run again with room after A
    "a_rows_n_apart": ([("A[row * K + a_col]", "A[row * N + a_col]")],
                       {"problem": "A's rows were read N elements apart", "hint": "A[row * K + a_col]"}),
    # rows N apart only where that stays inside A (N <= K: the second case), right elsewhere
    "a_rows_n_apart_within_a": ([("A[row * K + a_col]", "A[row * (N <= K ? N : K) + a_col]")],
                                {"problem": "A's rows were read N elements apart",
                                 "hint": "A[row * K + a_col]"}),
    # blind audit TFB-matmul_wide-1: the tile's width for A's row length (was '3388 of the 3465
    # elements of C are wrong ...', a trace of A[32], A[64], A[96] and the whole tile recipe)
    "a_rows_tile_k_apart": ([("A[row * K + a_col]", "A[row * TILE_K + a_col]")],
                            {"problem": "A's rows were read TILE_K = 32 elements apart "
                                        "(A[row * TILE_K + a_col]), but A is M x K: a row of A "
                                        "holds K = 70 elements",
                             "hint": "A[row * K + a_col]; TILE_K is the tile's width"}),
    # past A when N > K (the first case), the columns past N left out when N < K (the second)
    "a_guard_n": ([("(row < M && a_col < K)", "(row < M && a_col < N)")],
                  {"problem": "tests a_col against N", "hint": "a_col < K"}),
    # blind audit THB-matmul_wide-1: A's guard tests the thread's column in the tile, tx, where
    # A's column a_col belongs (was "A's guard tests a_col against N ... Hint: As[ty][tx] = (row
    # < M && a_col < K) ...", an N that is not in the code)
    "a_guard_tx_against_k": ([("(row < M && a_col < K)", "(row < M && tx < K)")],
                             {"problem": "A's guard tests tx against K, but tx is the thread's "
                                         "column in the tile (0 to 31), not A's column a_col",
                              "hint": "guard A's column: (row < M && a_col < K)"}),
    # no guard on A's column (was "A's guard tests a_col against N ...", an N not in the code)
    "a_column_unguarded": ([("(row < M && a_col < K)", "(row < M)")],
                           {"problem": "A's load guards the row alone, (row < M), with no test "
                                       "of its column", "hint": "guard A's column too"}),
    # blind audit AR: A's guard's tests joined with || (was "A's load guards the row alone,
    # (row < M), with no test of its column", a test the kernel has)
    "a_guard_with_or": ([("(row < M && a_col < K)", "(row < M || a_col < K)")],
                        {"problem": "A's load guard lets a thread load where either of its "
                                    "tests holds, as (row < M || a_col < K) does",
                         "hint": "join the two tests with &&: (row < M && a_col < K)"}),
    # found mending blind audit AR: no guard on A's load at all (was "A's load guards the row
    # alone, (row < M)", a test the kernel does not have)
    "a_load_unguarded": ([("(row < M && a_col < K) ? A[row * K + a_col] : 0.0f", "A[row * K + a_col]")],
                         {"problem": "A's load has no guard: every thread loads A[row * K + a_col]",
                          "hint": "As[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f"}),
    "a_guard_n_within_a": ([("(row < M && a_col < K)", "(row < M && a_col < (N <= K ? N : K))")],
                           {"problem": "tests a_col against N", "hint": "a_col < K"}),
    # blind audit TEB-matmul_wide-1: B's guard tests b_row against N (was 'the kernel crashed:
    # ... a read of B at matmul_wide.cu:23, 617 bytes past the end ... Hint: load only B's
    # elements, 0 past its edges', the guard's test never named)
    "b_guard_row_against_n": ([("(b_row < K && col < N)", "(b_row < N && col < N)")],
                              {"problem": "B's guard tests b_row against N, but B is K x N: where "
                                          "N > K its tile read rows past B's last (a read of B past "
                                          "its end with M = 45, K = 70, N = 77), and where N < K it "
                                          "left out B's rows N to K - 1 (M = 8, K = 33, N = 31: C "
                                          "took in only the first 31 products)",
                               "hint": "B's rows run below K: Bs[r][tx] = (b_row < K && col < N)"}),
    "sum_reset_each_phase": ([("        __syncthreads();\n        for (int k",
                               "        __syncthreads();\n        sum = 0.0f;\n        for (int k")],
                             {"problem": "only the last phase's products", "hint": "float sum = 0.0f"}),
    "b_guard_col_against_k": ([("(b_row < K && col < N)", "(b_row < K && col < K)")],
                              {"problem": "columns K and past", "hint": "col < N"}),
    # blind audit TXB-matmul_wide-1: B's guard tests col against M (was 'only the first 45
    # columns of each row of C are right ... Hint: a loop or a guard stops short ...', the guard
    # not named)
    "b_guard_col_against_m": ([("(b_row < K && col < N)", "(b_row < K && col < M)")],
                              {"problem": "C's columns M and past (45 to 76) are 0, the rest right: "
                                          "B's guard tests col against M = 45, A's number of rows, "
                                          "but B is K x N: its columns 45 to 76 were loaded as 0",
                               "hint": "B's columns run below N: Bs[r][tx] = (b_row < K && col < N)"}),
    "bs_rows_loaded_from_ty": ([("int b_row = phase * TILE_K + r;", "int b_row = phase * TILE_K + ty;")],
                               {"problem": "b_row from ty", "hint": "phase * TILE_K + r"}),
    # blind audit S2: the stub's b_row (with ty) kept and r added to it (was '3465 of the 3465
    # elements of C are wrong ...' with the recipe)
    "b_row_counts_ty_twice": ([(B_LOAD, "        int b_row = phase * TILE_K + ty;\n"
                                        "        for (int r = ty; r < TILE_K; r += TILE_M)\n"
                                        "            Bs[r][tx] = (b_row + r < K && col < N) ? "
                                        "B[(b_row + r) * N + col] : 0.0f;\n")],
                              {"problem": "B's row counted ty twice",
                               "hint": "int b_row = phase * TILE_K + r inside the loop over r"}),
    # blind audit H4 (was '3465 of the 3465 elements of C are wrong' with the recipe)
    "b_row_missing_ty": ([("for (int r = ty; r < TILE_K; r += TILE_M)", "for (int r = 0; r < TILE_K; r += TILE_M)"),
                          ("Bs[r][tx] =", "Bs[r + ty][tx] =")],
                         {"problem": "b_row missing the thread's ty", "hint": "phase * TILE_K + r + ty"}),
    # a read past B, run again with room after it: the detector of reads past A raised
    # AttributeError (it took A for the input read past) and the checker printed no verdict
    "b_guard_row_to_k": ([("(b_row < K && col < N)", "(b_row <= K && col < N)")],
                         {"problem": "a read of B", "hint": "Bs[r][tx] = (b_row < K && col < N)"}),
    # audit 3: Bs rows from ty * TILE_M (only rows 0, 8, 16, 24 loaded, each by several rows)
    "bs_rows_from_ty_times_tile_m": ([("for (int r = ty; r < TILE_K", "for (int r = ty * TILE_M; r < TILE_K")],
                                     {"problem": "write-after-write",
                                      "hint": "the loop over r starts at ty * TILE_M"}),
    # blind audit S2-2: B's rows from tx (was the race and 'Hint: two threads store into the
    # same element of the shared array: ... check its indices and the loops' steps')
    # blind audit TVB-matmul_wide-1: the loop over Bs's rows started at 0, not ty (was '... a data
    # race on Bs[0] ... Hint: two threads store into the same element of the shared array ...
    # check its indices and the loops' steps', the start not named)
    # blind audit AC (was 'on the simulator, which fills shared memory with NaN, C holds NaN: the
    # products read elements of Bs that no thread loaded ...', the rows and the step not named):
    # the loop over Bs's rows steps by blockDim.x, the block's width, so it runs once
    "bs_rows_step_by_block_width": ([("r < TILE_K; r += TILE_M)", "r < TILE_K; r += blockDim.x)")],
                                    {"problem": "so only rows 0 to 7 of Bs were loaded and rows 8 "
                                                "to 31 never (on the simulator, which fills shared "
                                                "memory with NaN, C holds NaN; a GPU reads whatever "
                                                "was there): your loop steps r by blockDim.x = 32, "
                                                "the block's width,",
                                     "hint": "step by the block's height, TILE_M = blockDim.y = 8"}),
    # blind audit AH (was 'the kernel crashed: ... indexed an array past the size it was declared
    # with (index 32) at matmul_wide.cu:23 ... Hint: As is TILE_M x TILE_K ...'): the loop over
    # Bs's rows runs while r <= TILE_K, one row past Bs's 32
    "bs_rows_loop_to_tile_k": ([("r < TILE_K; r += TILE_M)", "r <= TILE_K; r += TILE_M)")],
                               {"problem": "the loop over Bs's rows ran one row too far: thread "
                                           "(0, 0, 0) of block (0, 0, 0), ty = 0, whose rows are r "
                                           "= 0, 8, 16, 24, went on to r = 32 and stored Bs[32][tx]",
                                "hint": "for (int r = ty; r < TILE_K; r += TILE_M)"}),
    "bs_rows_from_zero": ([("for (int r = ty; r < TILE_K", "for (int r = 0; r < TILE_K")],
                          {"problem": "every row of threads stored the same rows of Bs, 0, 8, 16 "
                                      "and 24: the race check found Bs[0] stored by the threads of "
                                      "rows ty = 0 and ty = 1",
                           "hint": "start at its row in the block, ty"}),
    "bs_rows_from_tx": ([("for (int r = ty; r < TILE_K", "for (int r = tx; r < TILE_K")],
                        {"problem": "stored by the threads of rows ty = 0 and ty = 1 (thread (0, 0, 0) "
                                    "of block (0, 0, 0) and thread (0, 1, 0) of block (0, 0, 0)), "
                                    "and the trace shows thread (tx, ty) storing rows tx, tx + 8, "
                                    "... of column tx whatever its ty: the loop over Bs's rows "
                                    "starts at tx",
                         "hint": "for (int r = ty; r < TILE_K; r += TILE_M)"}),
    # blind audit K2: four neighbouring rows a thread (was the race and 'Hint: two threads store
    # into the same element of the shared array: ... check its indices and the loops' steps')
    "bs_rows_ty_to_ty_plus_3": ([("        for (int r = ty; r < TILE_K; r += TILE_M) {\n",
                                  "        for (int i = 0; i < TILE_K / TILE_M; i++) {\n"
                                  "            int r = ty + i;\n")],
                                {"problem": "each thread loaded 4 neighbouring rows of Bs, r = ty to "
                                            "ty + 3: the race check found Bs row 1 (Bs[32]) stored by "
                                            "the threads of rows ty = 0 and ty = 1",
                                 "hint": "r = ty, ty + 8, ty + 16, ty + 24: for (int r = ty; r < "
                                         "TILE_K; r += TILE_M)"}),
    # blind audit TIB-matmul_wide-1: Bs declared [TILE_K][TILE_M] (was 'the kernel crashed: thread
    # (8, 0, 0) ... indexed an array past the size it was declared with (index 8) ... Hint: As is
    # TILE_M x TILE_K (8 x 32) and Bs TILE_K x TILE_N (32 x 32): ...', the declaration not named)
    "bs_declared_tile_m_wide": ([("__shared__ float Bs[TILE_K][TILE_N];",
                                  "__shared__ float Bs[TILE_K][TILE_M];")],
                                {"problem": "Bs was declared __shared__ float Bs[TILE_K][TILE_M], "
                                            "rows of 8 columns, but each of its rows is stored and "
                                            "read at tx, up to 31",
                                 "hint": "__shared__ float Bs[TILE_K][TILE_N];"}),
    # blind audit ACB-matmul_wide-1: As's sides swapped (the hint was 'As[TILE_K][TILE_K];', 32
    # rows where the tile has 8)
    "as_sides_swapped": ([("__shared__ float As[TILE_M][TILE_K];",
                           "__shared__ float As[TILE_K][TILE_M];")],
                         {"problem": "As was declared __shared__ float As[TILE_K][TILE_M] (its sides "
                                     "swapped), rows of 8 columns",
                          "hint": "__shared__ float As[TILE_M][TILE_K];"}),
    # blind audit AW (was PASS: the simulator compiled __launch_bounds__ away): a bound of 128 on
    # a kernel launched with blocks of 32 x 8 = 256 threads, which a GPU refuses to launch
    "launch_bounds_below_the_block": (
        [("__global__ void matmul_wide(", "__global__ void __launch_bounds__(128) matmul_wide(")],
        {"problem": "your kernel's __launch_bounds__(128) allows at most 128 threads a block, but "
                    "the exercise launches blocks of 256 threads, (32, 8, 1)",
         "hint": "make N at least the threads of every block the kernel is launched with (256 "
                 "here), or drop __launch_bounds__"}),
}
SIMULATOR_ONLY = dict.fromkeys(("a_rows_n_apart", "a_guard_n", "a_column_unguarded", "a_guard_with_or", "a_load_unguarded", "a_guard_tx_against_k", "b_guard_row_to_k", "b_guard_row_against_n"),
                               "a read past A or B: a GPU reads other memory or faults and leaves "
                               "the context unusable")
SIMULATOR_ONLY["bs_read_at_col"] = ("an index past a shared array's end: on a GPU other "
                                    "shared memory or an illegal address")
SIMULATOR_ONLY["bs_rows_loop_to_tile_k"] = ("a store past a shared array's end: on a GPU other "
                                           "shared memory or an illegal address")
SIMULATOR_ONLY["bs_rows_from_tx"] = ("the products read rows of Bs that no thread loaded: on a GPU "
                                     "whatever shared memory held")
SIMULATOR_ONLY["return_before_the_loop"] = ("barriers that the threads outside C skip, and "
                                             "tile elements no thread loaded: on a GPU whatever "
                                             "shared memory held")
# Right, but not the solution's way: each must pass
RIGHT = {
    "bs_loaded_by_a_flat_index": [(B_LOAD, (
        "        for (int e = ty * TILE_N + tx; e < TILE_K * TILE_N; e += TILE_M * TILE_N) {\n"
        "            int r = e / TILE_N, b_row = phase * TILE_K + r;\n"
        "            Bs[r][e % TILE_N] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;\n"
        "        }\n"))],
    "four_loads_written_out": [(B_LOAD, "".join(
        f"        Bs[ty + {8 * j}][tx] = (phase * TILE_K + ty + {8 * j} < K && col < N) ? "
        f"B[(phase * TILE_K + ty + {8 * j}) * N + col] : 0.0f;\n" for j in range(4)))],
    "padded_tiles": [("As[TILE_M][TILE_K];", "As[TILE_M][TILE_K + 1];"),
                     ("Bs[TILE_K][TILE_N];", "Bs[TILE_K][TILE_N + 1];")],
}


@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL, **{n: variant(KERNEL, *r) for n, (r, _) in WRONG.items()},
               **{n: variant(KERNEL, *r) for n, r in RIGHT.items()}}
    return compile_variant_pairs("matmul_wide", sources)


def test_the_solution_passes(kernels, capsys):
    verdict = checker.check_matmul_wide_kernel(*kernels["solution"])
    assert verdict.passed is True
    assert capsys.readouterr().out == f"{verdict}\n"


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_kernel_written_another_way_passes(kernels, name):
    assert checker.check_matmul_wide_kernel(*kernels[name]).passed is True


@pytest.mark.parametrize("name", simulator_only(sorted(WRONG), SIMULATOR_ONLY))
def test_each_mistake_gets_its_own_verdict(kernels, name):
    verdict = checker.check_matmul_wide_kernel(*kernels[name])
    assert verdict.passed is False
    for field, words in WRONG[name][1].items():
        assert words in getattr(verdict, field), verdict


def test_the_stub_as_shipped_is_not_yet():
    verdict = checker.check_matmul_wide()
    assert verdict.passed is False
    assert verdict.problem.startswith("each sum takes in only 8 of every 32 products")
