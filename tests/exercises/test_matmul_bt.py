"""The tiled C = A Bt^T exercise (notebook 08): the solution passes, the stub and known-wrong
kernels fail, each with the hint that names its mistake; a right kernel whose loads are not
coalesced, or whose shared reads have bank conflicts, passes but is not FAST (the simulator's
trace; on a GPU, events against the FMA ceiling, ``gpu_timing``). A missing barrier is found by the race
check on the simulator whatever the backend (on a GPU the same variants are also compiled by the
simulator); the wrong kernels are variants of the shipped solution, all compiled as one module."""

import pytest

from kernel_sources import compile_variant_pairs, simulator_only, solution, variant

from helpers.backend import BACKEND
from helpers.exercises.matmul_bt import check_matmul_bt, check_matmul_bt_kernel

KERNEL = solution("matmul_bt.cu")
LOAD_A = "As[ty][tx] = (row < M && k < K) ? A[row * K + k] : 0.0f;"
LOAD_B = "Bs[ty][tx] = (bt_row < N && k < K) ? Bt[bt_row * K + k] : 0.0f;"
READ = "sum += As[ty][j] * Bs[tx][j];"
FIRST_BARRIER = "        __syncthreads();\n        for (int j"
SECOND_BARRIER = "        __syncthreads();\n    }\n"

# name: (replacements in the solution, a piece of the expected verdict)
WRONG = {
    "no_barrier_after_the_loads": ([(FIRST_BARRIER, "        for (int j")], "(TODO 3)"),
    # blind audit TAAB-matmul_bt-1: __syncwarp() where the first __syncthreads() belongs (was
    # '... with no barrier between the two (a read-after-write hazard) ...', the __syncwarp()
    # there not named)
    "syncwarp_after_the_loads": ([(FIRST_BARRIER, "        __syncwarp();\n        for (int j")],
                                 "the __syncwarp() at kernel.cu:", " waits only for the 32 threads "
                                 "of its own warp, not for the block: thread (0, 2, 0) (warp 1) "
                                 "writes Bs[34] at ", ", and thread 2 (warp 0) reads it at ",
                                 "threads of different warps, which a __syncwarp() does not hold back",
                                 "found by the race check on the simulator with M = 20, K = 13, N = 18",
                                 "Hint: a barrier for the whole block: __syncthreads() in the "
                                 "__syncwarp()'s place"),
    "no_barrier_after_the_products": ([(SECOND_BARRIER, "    }\n")], "(TODO 5)"),
    "loads_past_k_left_unzeroed": ([(LOAD_A, "if (row < M && k < K) As[ty][tx] = A[row * K + k];"),
                                    (LOAD_B, "if (bt_row < N && k < K) Bs[ty][tx] = Bt[bt_row * K + k];")],
                                   "holds something other than 0 past column K - 1"),
    "no_guard_on_k": ([("(row < M && k < K)", "(row < M)"), ("(bt_row < N && k < K)", "(bt_row < N)")],
                      "Bt's element (j, k) when j < N && k < K"),
    # the barriers are there: two threads of a row load one element of As (an index, not a barrier)
    "a_tile_loaded_on_its_diagonal": ([("As[ty][tx] = (row < M && k < K)", "As[ty][ty] = (row < M && k < K)")],
                                      "each element must be loaded by one thread"),
    # blind audit Q1: A's load guarded by the store's column (was a crash reading A with the
    # guards' general hint)
    "a_load_guarded_by_the_column": ([("As[ty][tx] = (row < M && k < K)", "As[ty][tx] = (col < N && k < K)")],
                                     "A's load is guarded by the thread's column, col < N"),
    # blind audit AE (was 'the kernel crashed: ... a read of Bt ... Hint: each load needs its own
    # guard: ...', every guard restated): Bt's load guarded by the thread's column, col < N
    "bt_load_guarded_by_the_column": ([(LOAD_B, LOAD_B.replace("(bt_row < N", "(col < N"))],
                                      "Bt's load is guarded by the thread's column, col < N, but it "
                                      "reads row bt_row", "thread (0, 5) of block (1, 0) read "
                                      "Bt's row bt_row = 21, past its last row, 20",
                                      "Hint: guard Bt's load with the row it reads: Bs[ty][tx] = "
                                      "(bt_row < N && k < K)"),
    # blind audit TSB-matmul_bt-1: sum = 0.0f at the start of each phase (was '3072 of 3072
    # elements of C are wrong ...' and a trace of right loads, the reset not named)
    "sum_reset_every_phase": ([("(K + TILE - 1) / TILE; phase++) {\n",
                                "(K + TILE - 1) / TILE; phase++) {\n        sum = 0.0f;\n")],
                              "only the last phase's products, columns 16 to 31 of K = 32: sum "
                              "was set back to 0 at the start of each phase"),
    # blind audit AR: the phase count K + TILE - 1 / TILE, K + 16 (was FAST: the phases past K
    # load only zeros, so C came out right)
    "phase_count_precedence": ([("(K + TILE - 1) / TILE", "K + TILE - 1 / TILE")],
                               "the phase loop ran K + 16 phases (48 with K = 32), where "
                               "(K + TILE - 1) / TILE = 2 cover K",
                               "/ binds tighter than + and -", "Hint: divide the whole sum, in "
                               "parentheses: phase < (K + TILE - 1) / TILE"),
    "phases_rounded_down": ([("(K + TILE - 1) / TILE", "K / TILE")], "never ran"),
    # blind audit AJ (was '777 of 777 elements of C are wrong ...' with a trace and the loads'
    # formulas as the hint, which the kernel had right): the phase count taken from N, not K
    "phases_from_n": ([("(K + TILE - 1) / TILE", "(N + TILE - 1) / TILE")],
                      "the phase count came from N = 21 (2 phases), not from K = 50",
                      "Hint: the phases run along k, over K: phase < (K + TILE - 1) / TILE"),
    "phases_from_m": ([("(K + TILE - 1) / TILE", "(M + TILE - 1) / TILE")],
                      "the phase count came from M = 37 (3 phases), not from K = 50"),
    "bt_rows_from_blockidx_y": ([("int bt_row = blockIdx.x * TILE + ty;",
                                  "int bt_row = blockIdx.y * TILE + ty;")], "from rows blockIdx.y"),
    "inner_loop_one_short": ([("j < TILE; j++", "j < TILE - 1; j++")], "the inner loop stops one short"),
    # audit 3 (the loads' and the inner loop's models, after the near misses)
    # blind audit H1 (the hint was to make the shared array bigger): reads past the tiles
    "inner_loop_over_k": ([("j < TILE; j++", "j < K; j++")], "stops at j < TILE"),
    "inner_loop_from_1": ([("int j = 0; j < TILE", "int j = 1; j < TILE")],
                          "the inner loop starts at j = 1"),
    "bt_rows_from_threadidx_x": ([("int bt_row = blockIdx.x * TILE + ty;",
                                   "int bt_row = threadIdx.x * TILE + ty;")],
                                 "Bt's tile was loaded from rows threadIdx.x * TILE + ty"),
    "phase_not_times_tile": ([("int k = phase * TILE + tx;", "int k = phase + tx;")],
                             "the loads' column is phase + tx"),
    "bt_read_as_b": ([(LOAD_B, "Bs[ty][tx] = (phase * TILE + ty < K && col < N) ? "
                               "Bt[(phase * TILE + ty) * N + col] : 0.0f;"),
                      (READ, "sum += As[ty][j] * Bs[j][tx];")], "read Bt as if it were B"),
    # rows N apart where that stays inside Bt (N <= K: the second case), right elsewhere
    "bt_rows_n_apart_within_bt": ([("Bt[bt_row * K + k]", "Bt[bt_row * (N <= K ? N : K) + k]")],
                                  "read Bt's rows N elements apart"),
    # blind audit O1 (the crash past A got the guards' hint): A's rows read M apart, past A
    "a_rows_m_apart": ([("A[row * K + k]", "A[row * M + k]")],
                       "the kernel read A's rows M elements apart"),
    # the same where the reads stay inside A (M < K: the second case), as on a GPU where a read
    # past A lands in other memory
    "a_rows_m_apart_within_a": ([("A[row * K + k]", "A[row * (M <= K ? M : K) + k]")],
                                "the kernel read A's rows M elements apart"),
    "tile_not_transposed": ([(READ, "sum += As[ty][j] * Bs[j][tx];")], "not transposed"),
    # tried by hand (stop 60): A's tile read down a column
    "as_read_down_a_column": ([(READ, "sum += As[j][ty] * Bs[tx][j];")],
                              "sum read As down a column, As[j][ty]"),
    # blind audit F2: the same C as tile_not_transposed, told by the trace's stores into Bs
    "tile_stored_transposed": ([(LOAD_B, LOAD_B.replace("Bs[ty][tx]", "Bs[tx][ty]"))],
                               "Bt's tile was stored transposed: thread (tx, ty) wrote Bs[tx][ty]"),
    # blind audit QQ Q1: the same C as as_read_down_a_column, told by the trace's stores into As
    # (was 'sum read As down a column', blaming the read, which is right)
    "a_tile_stored_transposed": ([(LOAD_A, LOAD_A.replace("As[ty][tx]", "As[tx][ty]"))],
                                 "A's tile was stored transposed: thread (tx, ty) wrote As[tx][ty]"),
    # blind audit QQ Q2: A's column taken with ty (was '3072 of 3072 elements of C are wrong')
    # blind audit S2-1 (was '3072 of 3072 elements of C are wrong ...' and the loads' lines)
    "a_column_phase_not_times_tile": ([("? A[row * K + k]", "? A[row * K + phase + tx]")],
                                      "A's tile was loaded from column phase + tx: phase counts "
                                      "the tiles"),
    "a_column_from_ty": ([("? A[row * K + k]", "? A[row * K + phase * TILE + ty]")],
                         "A's tile was loaded from column phase * TILE + ty"),
    # blind audit F1: Bs read with the thread's row, as As is
    # blind audit W1: the tiles' roles swapped in the products (was '2880 of 3072 elements of C
    # are wrong' and the hint restating every line)
    "tiles_roles_swapped": ([(READ, "sum += As[tx][j] * Bs[ty][j];")],
                            "each 16 x 16 tile of C came out transposed"),
    "bs_read_with_ty": ([(READ, "sum += As[ty][j] * Bs[ty][j];")],
                        "sum read Bs with the thread's row, Bs[ty][j]"),
    # blind audit TEB-matmul_bt-1: C's row length taken from A's (was '1504 of 3072 elements of C
    # were never written (the first is C[24][32]) ... Hint: every thread inside C stores its sum
    # once, ...: C[row * N + col] = sum', nothing saying the store's rows were K apart)
    "c_rows_k_apart": ([("C[row * N + col] = sum;", "C[row * K + col] = sum;")],
                       "C's elements were stored at row * K + col, rows K = 32 apart, where C is "
                       "M x N and its rows hold N = 64"),
    # blind audit TGB-matmul_bt-1: the store's guard against K (was '1536 of 3072 elements of C
    # were never written (the first is C[0][32]) ... Hint: every thread inside C stores its sum
    # once, ...: C[row * N + col] = sum', nothing naming the guard)
    "store_guard_col_against_k": ([("    if (row < M && col < N)\n        C[",
                                    "    if (row < M && col < K)\n        C[")],
                                  "the store's guard compared col with K (col < K), where N, C's "
                                  "number of columns, belongs: C's columns 32 to 63 were never "
                                  "written"),
    # blind audit TJB-matmul_bt-1: row from tx (was '2880 of 3072 elements of C were never
    # written ... Hint: every thread inside C stores its sum once, ...: C[row * N + col] = sum')
    "row_from_tx": ([("int row = blockIdx.y * TILE + ty;", "int row = blockIdx.y * TILE + tx;")],
                    "row = blockIdx.y * TILE + tx"),
    # blind audit TWB-matmul_bt-1: col from ty, copied from row's line (was '2880 of 3072 elements
    # of C were never written (the first is C[0][1]) ... Hint: every thread inside C stores its sum
    # once, ...: C[row * N + col] = sum', the store, which is right). The 16 threads of a row of
    # the block race on one element, each with a right value of that row: which lands last does
    # not matter to the verdict, on a GPU as on the simulator
    "col_from_ty": ([("int col = blockIdx.x * TILE + tx;", "int col = blockIdx.x * TILE + ty;")],
                    "2880 of 3072 elements of C were never written, all those off the diagonals",
                    "col = blockIdx.x * TILE + ty takes the column from ty, as row does",
                    "Hint: the column comes from tx: int col = blockIdx.x * TILE + tx;"),
    # blind audit TMB-matmul_bt-1: row from blockIdx.x (was '2304 of 3072 elements of C were
    # never written (the first is C[0][16]) ... Hint: every thread inside C stores its sum once,
    # ...: C[row * N + col] = sum', the store, which is right)
    "row_from_blockidx_x": ([("int row = blockIdx.y * TILE + ty;", "int row = blockIdx.x * TILE + ty;")],
                            "only the 16 x 16 tiles on C's diagonal were written"),
    "no_store_guard": ([("    if (row < M && col < N)\n        C[", "    C[")],
                       "if (row < M && col < N)"),
    # the element traced back, named by its row and column and as the kernel indexes it
    "phase_missing_from_a_index": ([("A[row * K + k]", "A[row * K + tx]")],
                                   "as the kernel indexes it, was stored by thread"),
    # threads outside C skip the loads (and the barriers): the edge tiles read what nobody loaded
    "loop_inside_the_store_guard": ([("    float sum = 0.0f;\n    for",
                                      "    float sum = 0.0f;\n    if (row < M && col < N) {\n    for"),
                                     ("    if (row < M && col < N)\n        C[", "    C["),
                                     ("= sum;\n}", "= sum;\n    }\n}")],
                                    "skipped their loads into As and Bs"),
    "return_before_the_loop": ([("    float sum = 0.0f;\n",
                                 "    float sum = 0.0f;\n    if (row >= M || col >= N) return;\n")],
                               "skipped their loads into As and Bs"),
    # blind audit TIB-matmul_bt-1: sum = where sum += belongs (was '3071 of 3072 elements of C are
    # wrong ... Hint: As[ty][tx] = ... then sum += As[ty][j] * Bs[tx][j] ...', the whole recipe)
    "sum_assigned_not_added": ([(READ, "sum = As[ty][j] * Bs[tx][j];")],
                               "each element of C is the last product alone, A[row][31] * "
                               "Bt[col][31]: the inner loop assigned, sum = As[ty][j] * Bs[tx][j]"),
    # a near miss (helpers.exercises.near): the sum starts at 1
    "sum_from_one": ([("    float sum = 0.0f;\n", "    float sum = 1.0f;\n")],
                     "every element of C is the right value plus 1"),
    # the tiles (or one) declared without __shared__: each thread's own array, one element set
    # (was '3071 of 3072 elements of C are wrong ...', with the index hint)
    "tiles_not_shared": ([("__shared__ float As", "float As"), ("__shared__ float Bs", "float Bs")],
                         "the kernel never touched shared memory"),
    "as_not_shared": ([("__shared__ float As", "float As")],
                      "As is not in shared memory (the trace saw Bs there, never As)"),
    "bs_not_shared": ([("__shared__ float Bs", "float Bs")], "__shared__ float Bs[TILE][TILE + 1]"),
    # blind audit Y2: A's guard without k < K (was 'the kernel crashed: ... a read of A ..., 9
    # bytes past the end ... Hint: each load needs its own guard: ...', all the guards restated)
    "a_guard_without_k": ([("(row < M && k < K)", "(row < M)")],
                          "A's load is guarded by its row alone, (row < M), without k < K: in the "
                          "last phase, where k runs past K - 1, each row of the tile ran on into "
                          "the next row of A"),
    # blind audit TFB-matmul_bt-1: Bt's rows guarded by M (was 'the kernel failed on the
    # simulator: ... a read of Bt[234] ... 1 element past the end of its 234 ... Hint: each load
    # needs its own guard: ...', every guard restated)
    "bt_guard_against_m": ([("(bt_row < N && k < K)", "(bt_row < M && k < K)")],
                           "Bt's load is guarded by bt_row < M, where N belongs: Bt has N = 64 "
                           "rows, but its rows 48 to 63 were loaded as 0.0f, so C's columns 48 to "
                           "63 came out 0"),
    # blind audit AB (was 'the kernel failed on the simulator: ... a read of Bt[234] ... 1 element
    # past the end of its 234 ... Hint: each load needs its own guard: ...', every guard restated):
    # matmul_tiled's B guard carried over, k tested with ty where the load reads column tx's
    "bt_k_guard_from_ty": ([(LOAD_B, "Bs[ty][tx] = (phase * TILE + ty < K && bt_row < N) ? "
                                     "Bt[bt_row * K + k] : 0.0f;")],
                           "Bt's load tests k with ty, phase * TILE + ty < K, but reads Bt at "
                           "column phase * TILE + tx",
                           "Hint: guard the column the load reads: Bs[ty][tx] = (bt_row < N && "
                           "phase * TILE + tx < K)"),
    # blind audit AC (was 'the kernel crashed: ... a read of Bt ..., 9 bytes past the end ...
    # Hint: each load needs its own guard: ...', the cause not named): both guards joined with ||
    "guards_joined_with_or": ([("(row < M && k < K)", "(row < M || k < K)"),
                               ("(bt_row < N && k < K)", "(bt_row < N || k < K)")],
                              "an element is loaded when either of its indices is inside",
                              "join the two tests with &&"),
    "bt_guard_without_k": ([("(bt_row < N && k < K)", "(bt_row < N)")],
                           "Hint: guard Bt's element by both its indices: Bs[ty][tx] = (bt_row < N "
                           "&& k < K) ? Bt[bt_row * K + k] : 0.0f"),
    # blind audit TNB-matmul_bt-1: sum declared int (was 'C is all zeros: nothing was added to
    # sum ... Hint: follow the TODOs')
    "sum_declared_int": ([("float sum = 0.0f;", "int sum = 0;")],
                         "sum is declared int: each add's result is cut toward 0 to a whole "
                         "number"),
    # blind audit TOB-matmul_bt-1: C stored transposed (was '... the output is transposed ...
    # Hint: As[ty][tx] = ...', the tile loads, which are right, never the store)
    "c_stored_transposed": ([("C[row * N + col] = sum;", "C[col * M + row] = sum;")],
                            "stored at C[c * 48 + r]", "C[row * N + col] = sum"),
}
# On a GPU a tile that is each thread's own array holds, past the element it loaded, whatever
# that thread's local memory held last (the trace on the simulator names it on either backend)
SIMULATOR_ONLY = {name: "reads a local array's elements that nothing set" for name in
                  ("tiles_not_shared", "as_not_shared", "bs_not_shared")}
SIMULATOR_ONLY["inner_loop_over_k"] = "reads past a __shared__ tile"
SIMULATOR_ONLY["a_rows_m_apart"] = "reads past A"
SIMULATOR_ONLY["a_load_guarded_by_the_column"] = "reads past A"
SIMULATOR_ONLY["bt_load_guarded_by_the_column"] = "reads past Bt"
# the last row's loads read past the array's end: a GPU reads whatever lies there (times 0)
SIMULATOR_ONLY["a_guard_without_k"] = "reads past A"
SIMULATOR_ONLY["bt_guard_without_k"] = "reads past Bt"
SIMULATOR_ONLY["guards_joined_with_or"] = "reads past A and Bt"
# right but slow: PASS, not FAST (name: (replacements, a piece of what keeps it from FAST))
SLOW = {
    # Bt read down its columns: the trace's sectors a request tell
    "bt_read_down_its_columns": ([(LOAD_B, "Bs[tx][ty] = (col < N && phase * TILE + ty < K) ? "
                                           "Bt[col * K + phase * TILE + ty] : 0.0f;")],
                                 "10.0 sectors a request"),
    # Bs not padded: a warp's Bs[tx][j] fall in 2 banks
    "bs_not_padded": ([("TILE + 1]", "TILE]")], "bank conflicts a request"),
}
# right, written otherwise: each must pass
RIGHT = {
    # Bt's tile read along its rows (coalesced), stored transposed in shared memory
    "bt_tile_stored_transposed": [(LOAD_B, "Bs[tx][ty] = (bt_row < N && k < K) ? "
                                           "Bt[bt_row * K + k] : 0.0f;"),
                                  (READ, "sum += As[ty][j] * Bs[j][tx];")],
    # if/else loads, no padding of Bs
    "if_else_loads": [("TILE + 1]", "TILE]"),
                      (LOAD_A, "if (row < M && k < K) As[ty][tx] = A[row * K + k]; "
                               "else As[ty][tx] = 0.0f;")],
}


@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL,
               **{name: variant(KERNEL, *r) for name, (r, *_) in {**WRONG, **SLOW}.items()},
               **{name: variant(KERNEL, *r) for name, r in RIGHT.items()}}
    return compile_variant_pairs("matmul_bt", sources)    # the race check runs on the simulator


def test_the_stub_fails(capsys):
    assert not check_matmul_bt()
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: C is all zeros"), out


def test_the_solution_passes(kernels, capsys):
    verdict = check_matmul_bt_kernel(*kernels["solution"])
    assert verdict.passed is True, capsys.readouterr().out
    assert "no race found" in verdict.problem


@pytest.mark.skipif(BACKEND != "simulator", reason="on a GPU the speed is timed: gpu_timing")
def test_on_the_simulator_the_solution_is_fast_by_its_trace(kernels, capsys):
    verdict = check_matmul_bt_kernel(*kernels["solution"])
    assert verdict.level == "FAST" and "4.0 sectors a request" in verdict.problem, verdict


@pytest.mark.skipif(BACKEND != "simulator", reason="on a GPU the speed is timed: gpu_timing")
@pytest.mark.parametrize("name", sorted(SLOW))
def test_on_the_simulator_a_slow_kernel_passes_but_is_not_fast(name, kernels, capsys):
    verdict = check_matmul_bt_kernel(*kernels[name])
    assert (verdict.level, SLOW[name][1] in verdict.slow) == ("PASS", True), verdict
    assert "not yet FAST" in capsys.readouterr().out


@pytest.mark.parametrize("name", sorted(SLOW))
def test_the_trace_rule_finds_a_slow_kernel_on_any_backend(name, kernels):
    from helpers.exercises.kernel import Kernels
    from helpers.exercises.matmul_bt import _traced

    assert next(_traced(Kernels(None, kernels[name][1])), None) is not None
    assert next(_traced(Kernels(None, kernels["solution"][1])), None) is None


@pytest.mark.gpu_timing
@pytest.mark.skipif(BACKEND != "pycuda", reason="the event-timed rule needs a GPU")
def test_on_a_gpu_the_solution_is_fast_and_the_slow_kernels_are_not(kernels, capsys):
    verdict = check_matmul_bt_kernel(*kernels["solution"])
    assert verdict.level == "FAST" and "of the FMA ceiling" in verdict.problem, verdict
    for name in sorted(SLOW):   # bank conflicts on every read; Bt read down its columns
        verdict = check_matmul_bt_kernel(*kernels[name])
        assert verdict.level == "PASS" and "where FAST takes 10%" in verdict.slow, (name, verdict)


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_kernel_written_otherwise_passes(name, kernels, capsys):
    assert check_matmul_bt_kernel(*kernels[name]).passed is True, capsys.readouterr().out


@pytest.mark.parametrize("name", simulator_only(sorted(WRONG), SIMULATOR_ONLY))
def test_wrong_kernel_fails_with_its_hint(name, kernels, capsys):
    assert check_matmul_bt_kernel(*kernels[name]).passed is False
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: ") and all(e in out for e in WRONG[name][1:]), out


def test_a_missing_barrier_is_named_by_the_race_check(kernels, capsys):
    check_matmul_bt_kernel(*kernels["no_barrier_after_the_products"])
    out = capsys.readouterr().out
    kernel = "kernel 'matmul_bt__no_barrier_after_the_products'"
    assert f"{kernel} has a data race on As[" in out or f"{kernel} has a data race on Bs[" in out, out
    assert "found by the race check on the simulator" in out, out
    assert "K = 37" in out, out    # not in the case with a single phase


def test_on_a_gpu_the_race_check_needs_the_simulator_s_kernel(kernels):
    if BACKEND == "simulator":
        pytest.skip("on the simulator the kernel is its own simulated kernel")
    with pytest.raises(ValueError, match="compiled by the simulator"):
        check_matmul_bt_kernel(kernels["solution"][0])


@pytest.mark.skipif(BACKEND != "simulator", reason="on a GPU a read past Bt lands in other "
                    "memory, or faults and leaves the context unusable")
def test_a_read_past_bt_is_run_again_with_room_and_named_or_named_by_its_array_and_line():
    """Bt's rows read N elements apart (they hold K) run past Bt when N > K: run again with room
    after Bt, the result is that of the stride, which the verdict names. A read past Bt that no
    known mistake explains (one row on) keeps the crash, naming the parameter whose allocation
    the read ran past, and the line."""
    kernels = compile_variant_pairs("matmul_bt", {
        "rows_of_n": variant(KERNEL, ("Bt[bt_row * K + k]", "Bt[bt_row * N + k]")),
        "one_row_on": variant(KERNEL, ("Bt[bt_row * K + k]", "Bt[(bt_row + 1) * K + k]"))})
    verdict = check_matmul_bt_kernel(*kernels["rows_of_n"])
    assert verdict.passed is False
    assert verdict.problem.startswith("the kernel read Bt's rows N elements apart"), verdict
    assert "Bt[bt_row * K + k]" in verdict.hint, verdict
    verdict = check_matmul_bt_kernel(*kernels["one_row_on"])
    assert verdict.passed is False
    assert "a read of Bt at " in verdict.problem and "past the end of its 8192 bytes" in \
        verdict.problem, verdict


def test_a_s_rows_read_m_apart_are_named_where_the_reads_past_a_do_not_crash():
    """On a GPU a read past A lands in other memory (no crash, no run with room after A): the
    rows of C whose reads of A, M elements apart, stay inside A name the mistake."""
    import numpy as np

    from helpers.exercises.matmul_bt import Case, _a_rows_apart, _launch

    a, bt, want = _launch(Case(48, 32, 64)).model
    rows = np.arange(48)[:, None] * 48 + np.arange(32)
    inside = rows[:, -1] < a.size
    got = np.where(inside[:, None], np.take(a.ravel(), rows, mode="clip") @ bt.T, 7.0)
    assert [problem for problem, _ in _a_rows_apart(got, a, bt)] == [
        "the kernel read A's rows M elements apart (A[row * M + k]), but A is M x K: each of its "
        "rows holds K elements"]
    assert not list(_a_rows_apart(want, a, bt))


@pytest.mark.parametrize("seed", [25, 27])
def test_the_solution_passes_grader_s_cases_of_one_row(seed):
    """C of one row (seed 25: M = 1, K = 19, N = 18): row * K + col and row * N + col are the
    same element, and a store at row * K + col was named for a right kernel (the reference
    solution got NOT YET on 2 of 60 of the grader's draws)."""
    assert check_matmul_bt("solutions/matmul_bt.cu", hidden=seed).passed is True
