"""The dot_product exercise's variants for tests/exercises/test_dot_product.py: the solution
(KERNEL), the known mistakes (WRONG: name, source, the words the NOT YET line must contain) and the
kernels right in another way (RIGHT)."""

from kernel_sources import solution, variant

KERNEL = solution("dot_product.cu")
LOOP = ("    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
        "        v += x[i] * y[i];\n")
FIRST_WARP = "        v = warp_sum(lane < warps ? warp_sums[lane] : 0.0f);\n"
TAIL = KERNEL[KERNEL.index("    if (lane == 0)\n        warp_sums[warp] = v;"):]

# (name, source, words that the NOT YET line must contain)
def quoted(words):
    """Words of a verdict told of the block of the case it quotes (block = (b, 1, 1)), which
    depends on the backend (a GPU's first wrong case need not be the simulator's): ``words``
    with {b} its threads, {w} its warps, {w1} one more and {w0} one fewer."""
    return lambda b: words.format(b=b, w=b // 32, w1=b // 32 + 1, w0=b // 32 - 1)


WRONG = [
    ("no_grid_stride_loop",
     variant(KERNEL, (LOOP, "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                            "    if (i < n)\n        v = x[i] * y[i];\n")),
     ["only the first 192 elements", "grid-stride loop"]),
    ("warp_sum_adds_nothing",
     variant(KERNEL, ("        v += __shfl_down_sync(0xffffffff, v, offset);\n", "        ;\n")),
     ["only thread 0 of each block counted", "__shfl_down_sync"]),
    ("only_the_first_warp", variant(KERNEL, (TAIL, "    if (threadIdx.x == 0)\n        atomicAdd(result, v);\n}\n")),
     ["only the first warp of each block counted", "warp_sums[warp]"]),
    # blind audit AC (was 'only the first warp of each block counted ... Hint: lane 0 of every
    # warp writes its sum to warp_sums[warp]; ...', which it did): the warp sums read, not added
    ("warp_sums_read_not_added", variant(KERNEL, (FIRST_WARP, "        v = lane < warps ? warp_sums[lane] : 0.0f;\n")),
     ["lanes 0 to 3 of the first warp read them", "lane 0's atomicAdd added only warp_sums[0]",
      "never added together with warp_sum", "Hint: add them before lane 0's atomicAdd: v = warp_sum("]),
    # blind audit AL (was '... the values the first warp's lanes read were never added together with warp_sum'): the second warp_sum into an unused block_sum
    ("second_warp_sum_left_unused", variant(KERNEL, (FIRST_WARP, "        float block_sum = warp_sum(lane < warps ? warp_sums[lane] : 0.0f);\n")),
     ["the first warp's warp_sum over them went into block_sum, which nothing uses: lane 0's atomicAdd adds v", "Hint: add the block's sum: atomicAdd(result, block_sum)"]),
    # blind audit G21, G22 (were 'the result is NaN: the kernel read x or y past n ..., or an
    # element of a __shared__ array that no thread ... had written' and 'the sum is ...')
    ("warp_sums_stored_by_thread_0", variant(KERNEL, ("    if (lane == 0)\n        warp_sums[warp] = v;", "    if (threadIdx.x == 0)\n        warp_sums[warp] = v;")),
     ["only the first warp of each block stored its sum in warp_sums", "if (lane == 0) warp_sums[warp] = v"]),
    # blind audit THA-dot_product-1 (was 'the result is NaN: the kernel read x or y past n ..., or
    # an element of a __shared__ array that no thread ... had written', with the guards for hint)
    ("warp_sum_added_into_an_unset_slot", variant(KERNEL, ("warp_sums[warp] = v;", "warp_sums[warp] += v;")),
     ["added its warp's sum into warp_sums[warp] (+=), which no thread had set",
      "not cleared for you", "Hint: store the warp's sum: if (lane == 0) warp_sums[warp] = v"]),
    # blind audit P11: lane 31's sum (was 'the sum is 1042.471, NumPy's is 991.7638', the plan)
    ("warp_sums_stored_by_lane_31",
     variant(KERNEL, ("    if (lane == 0)\n        warp_sums[warp] = v;",
                      "    if (lane == 31)\n        warp_sums[warp] = v;")),
     ["lane 31 stored its warp's sum in warp_sums[warp], but after warp_sum's __shfl_down_sync "
      "the warp's sum is in lane 0", "if (lane == 0) warp_sums[warp] = v"]),
    ("second_warp_sum_added_to_v", variant(KERNEL, ("        v = warp_sum(lane < warps", "        v += warp_sum(lane < warps")),
     ["each block's first warp's sum was counted twice", "v = warp_sum(lane < blockDim.x / 32"]),
    ("every_block_counts_everything", variant(KERNEL, (LOOP, "    for (int i = threadIdx.x; i < n; i += blockDim.x)\n        v += x[i] * y[i];\n")),
     ["2 times the dot product", "blockDim.x * gridDim.x"]),
    ("reads_past_n", variant(KERNEL, ("i < n;", "i <= n;")), ["NaN", "i < n"]),
    # blind audit TYA-dot_product-1 (was 'the sum is 1026.345, NumPy's is 991.7638 ... Hint: each
    # thread adds x[i] * y[i] over its i (grid-stride loop), ...'): gridDim.x for blockDim.x in
    # the loop's start, the blocks' walks overlapping
    ("start_with_grid_dim",
     variant(KERNEL, ("int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;",
                      "int i = blockIdx.x * gridDim.x + threadIdx.x; i < n;")),
     ["the loop starts at blockIdx.x * gridDim.x + threadIdx.x: block 1 starts at element 2, not "
      "96", "i = blockIdx.x * blockDim.x + threadIdx.x"]),
    ("drops_the_tail_in_pairs",
     variant(KERNEL, (LOOP,
                      "    int stride = blockDim.x * gridDim.x;\n"
                      "    for (int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x); i + 1 < n;"
                      " i += 2 * stride)\n"
                      "        v += x[i] * y[i] + x[i + 1] * y[i + 1];\n")),
     ["the last 1 of the 1,001 elements were not counted", "tail"]),
    ("a_tree_of_the_warp_sums_drops_the_odd_warp",
     variant(KERNEL, (FIRST_WARP,
                      "        for (unsigned int s = warps / 2; s > 0; s >>= 1) {\n"
                      "            if (lane < s)\n"
                      "                warp_sums[lane] += warp_sums[lane + s];\n"
                      "            __syncwarp();\n        }\n        v = warp_sums[0];\n")),
     ["warps past the first 2 of the 3", "any number of warps"]),
    # warp_sums[lane] for all 32 lanes, where only blockDim.x / 32 were written: on the H200 a
    # garbage sum; on the simulator shared memory starts as NaN, as a GPU's is never zeroed
    ("one_warp_sum_too_many", variant(KERNEL, ("lane < warps ?", "lane <= warps ?")),  # audit TDA
     [quoted("read warp_sums[{w}], one past the {w} sums"), quoted("(blockDim.x = {b})"), "lane <= warps",
      "lane < warps ? warp_sums["]),
    # the warps counted one too many, blockDim.x / 32 + 1, where the lane test is right: the same
    # reads as lane <= warps (was 'the test lane <= warps lets lane warps through', a test the
    # kernel does not have)
    ("warps_counted_one_too_many", variant(KERNEL, ("warps = blockDim.x / 32;", "warps = blockDim.x / 32 + 1;")),
     [quoted("read warp_sums[{w}], one past the {w} sums"),
      quoted("warps counts {w1}, one more than the block's {w}"), "warps = blockDim.x / 32"]),
    # blind audit AK (was 'the sum is 10588.4, NumPy's is 991.7638', the plan as hint): warp_sums[lane % warps] read around
    ("warp_sums_read_around", variant(KERNEL, (FIRST_WARP, "        v = warp_sum(warp_sums[lane % warps]);\n")),
     ["10.7 times NumPy's", "lane l reading warp_sums[l % warps]", "added about 32 / warps times", "lane < warps ? warp_sums[lane] : 0.0f"]),
    # blind audits AM and AP (said 'the block's 4 warps', a launch of blockDim.x = 128, beside its
    # case's block of 96): the warps of the block the verdict quotes
    ("adds_all_32_warp_sums", variant(KERNEL, (FIRST_WARP, "        v = warp_sum(warp_sums[lane]);\n")),
     ["lanes 0 to 31 of the first warp read warp_sums[0] to [31]",
      quoted("where the block's {w} warps wrote only warp_sums[0] to [{w0}]"), quoted("(blockDim.x = {b})"),
      quoted("block = ({b}, 1, 1)"), "lane < blockDim.x / 32"]),
    # blind audit TEA-dot_product-1 (was 'the result is NaN: the kernel read x or y past n ..., or
    # an element of a __shared__ array that no thread of the block had written ...')
    ("warps_is_32", variant(KERNEL, ("int warps = blockDim.x / 32;", "int warps = 32;")),
     [quoted("where the block's {w} warps wrote only warp_sums[0] to [{w0}]"), "as warps = 32 (the array's "
      "size)", "lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f (warps = blockDim.x / 32)"]),
    ("missing_barrier", variant(KERNEL, ("    __syncthreads();", "")),
     ["data race on warp_sums", "__syncthreads()"]),
    # blind audit AB (was '... data race on warp_sums[1] ... with no barrier between the two ...
    # Hint: after lane 0 ... a __syncthreads() ...', silent on theirs): __syncwarp() for the barrier
    ("syncwarp_for_the_barrier", variant(KERNEL, ("    __syncthreads();", "    __syncwarp();")),
     ["the __syncwarp() at ", "waits only for the 32 threads of its own warp", "thread 32 (warp 1) "
      "writes warp_sums[1]", "Hint: a barrier for the whole block: __syncthreads() in the __syncwarp()'s place"]),
    ("racy_add_to_result", variant(KERNEL, ("atomicAdd(result, v);", "*result += v;")),
     ["data race on result", "atomicAdd(result, v)"]),
    # blind audit AH (was '... data race on result[0] ... Hint: two threads store into the same element ...'): *result = v
    ("plain_store_to_result", variant(KERNEL, ("atomicAdd(result, v);", "*result = v;")),
     ["stored its sum with a plain store", "only the last block's sum stays", "Hint: add it: atomicAdd(result, v)"]),
    # issue 28: each wrong shape of the algorithm named as itself, not the whole plan as hint
    ("warp_sums_declared_too_small",
     variant(KERNEL, ("__shared__ float warp_sums[32];", "__shared__ float warp_sums[8];")),
     ["past the size it was declared with", "warp_sums needs one element for each warp",
      "32"]),
    ("racy_shared_accumulator",
     variant(KERNEL, ("    __shared__ float warp_sums[32];\n",
                      "    __shared__ float warp_sums[32];\n    __shared__ float block_sum;\n"
                      "    if (threadIdx.x == 0)\n        block_sum = 0.0f;\n"),
             (TAIL, "    if (lane == 0)\n        block_sum += v;\n    __syncthreads();\n"
                    "    if (threadIdx.x == 0)\n        atomicAdd(result, block_sum);\n}\n")),
     ["data race on block_sum", "atomicAdd(&block_sum, v)", "warp_sums[warp]"]),
    ("shuffle_inside_a_divergent_branch", variant(KERNEL, ("    if (warp == 0) {\n        v = warp_sum(lane < warps ? warp_sums[lane] : 0.0f);\n",
                                                          "    if (warp == 0 && lane < warps) {\n        v = warp_sum(warp_sums[lane]);\n")),
     ["mask", "outside the if", "bring 0"]),
    # blind audit AI (was 'the kernel crashed: ... a warp function whose mask names lanes that never call it ... call it
    # outside the if', the shuffle blamed): if (first >= n) return; before the loop, so the threads past n skip warp_sum
    ("return_past_n_before_warp_sum", variant(KERNEL, (LOOP, "    int first = blockIdx.x * blockDim.x + threadIdx.x;\n    if (first >= n)\n"
                                                             "        return;\n" + LOOP.replace("blockIdx.x * blockDim.x + threadIdx.x", "first"))),
     ["the return at line ", "in block 0 (n = 77) threads 77 to 127 had returned: lanes 13 to 31 of warp 2 and all of warp 3",
      "Hint: drop the return: the grid-stride loop's i < n already leaves v = 0"]),
    # only lane 0 of each warp enters if (warp == 0), alone in its warp
    ("lane_and_warp_swapped",
     variant(KERNEL, ("lane = threadIdx.x % 32, warp = threadIdx.x / 32;",
                      "lane = threadIdx.x / 32, warp = threadIdx.x % 32;")),
     ["mask", "threads 0, 32, 64", "lane and warp are swapped", "lane = threadIdx.x % 32"]),
    # lane 0 of each warp alone in warp_sum too, but the other lanes wait at the barrier
    ("warp_sum_inside_lane_0s_if",
     variant(KERNEL, ("    v = warp_sum(v);\n\n    if (lane == 0)\n        warp_sums[warp] = v;",
                      "    if (lane == 0)\n        warp_sums[warp] = warp_sum(v);")),
     ["mask", "outside the if", "bring 0"]),
    # audit E (E32), blind audit AN (the shuffle named first): lanes 1 to 31 went past the barrier
    ("barrier_inside_lane_0s_if",
     variant(KERNEL, ("    if (lane == 0)\n        warp_sums[warp] = v;\n    __syncthreads();",
                      "    if (lane == 0) {\n        warp_sums[warp] = v;\n        __syncthreads();\n    }")),
     ["NOT YET: the __syncthreads() at line ", "is inside if (lane == 0): lanes 1 to 31 of each warp skip it",
      "lane 0 waits at the barrier", "Hint: put the __syncthreads() after the if"]),
    # audit E (E33): was 'the sum is 1034.354, NumPy's is 991.7638' with the plan as hint
    ("first_warp_reads_its_own_warp_s_sum",
     variant(KERNEL, ("lane < warps ? warp_sums[lane]", "lane < warps ? warp_sums[warp]")),
     ["each block added its first warp's sum 3 times", "warp_sums[warp]",
      "warp_sums[lane] : 0.0f"]),
    ("warp_synchronous_tree_without_a_barrier",
     variant(KERNEL, (FIRST_WARP,
                      "        warp_sums[lane] = lane < warps ? warp_sums[lane] : 0.0f;\n"
                      "        for (unsigned int s = 16; s > 0; s >>= 1)\n"
                      "            if (lane < s)\n"
                      "                warp_sums[lane] += warp_sums[lane + s];\n"
                      "        v = warp_sums[0];\n")),
     ["data race on warp_sums", "lanes are not kept in step", "__shfl_down_sync"]),
    ("every_lane_stores_its_warps_sum",
     variant(KERNEL, ("    if (lane == 0)\n        warp_sums[warp] = v;", "    warp_sums[warp] = v;")),
     ["write-after-write", "only lane 0 of each warp", "if (lane == 0)"]),
    # blind audit R11: the first warp zeroes warp_sums with no barrier before the lanes 0 store (was
    # '... write-after-write ... Hint: ... only lane 0 of each warp stores ...', the right store)
    ("warp_sums_zeroed_without_a_barrier",
     variant(KERNEL, ("    unsigned int warps = blockDim.x / 32;\n",
                      "    unsigned int warps = blockDim.x / 32;\n    if (threadIdx.x < 32)\n"
                      "        warp_sums[threadIdx.x] = 0.0f;\n"),
             ("warp_sum(lane < warps ? warp_sums[lane] : 0.0f)", "warp_sum(warp_sums[lane])")),
     ["write-after-write", "Hint: thread 1's store into warp_sums[1] at", "needs a "
      "__syncthreads() after it, before lane 0 of warp 1 stores", "or leave it out"]),
    # blind audit J11: lane 0 stores at its thread number, warp_sums[threadIdx.x]: thread 32
    # stores warp_sums[32] (was 'declare it __shared__ float warp_sums[32]', as it already is)
    ("warp_sums_at_the_thread", variant(KERNEL, ("        warp_sums[warp] = v;", "        warp_sums[threadIdx.x] = v;")),
     ["past the size it was declared with", "lane 0 of warp 1 (thread 32) stored its warp's sum at "
      "warp_sums[32], its thread number", "warp_sums[warp] = v"]),
    ("warp_sums_at_the_lane", variant(KERNEL, ("        warp_sums[warp] = v;", "        warp_sums[lane] = v;")),
     ["write-after-write", "only lane 0 of each warp", "warp_sums[warp] = v"]),
    # blind audit X21 (was '... write-after-write ... Hint: ... only lane 0 of each warp stores')
    ("lane_by_bit_5",
     variant(KERNEL, ("lane = threadIdx.x % 32,", "lane = threadIdx.x & 32,")),
     ["every lane of warps 0 and 2 stored into warp_sums", "threadIdx.x & 32",
      "lane = threadIdx.x % 32"]),
    # blind audit X22 (was 'the sum is 134.9659, NumPy's is 991.7638' with the plan for hint)
    ("shuffle_value_and_offset_swapped",
     variant(KERNEL, ("__shfl_down_sync(0xffffffff, v, offset)",
                      "__shfl_down_sync(0xffffffff, offset, v)")),
     ["value and offset are swapped", "adds 16 + 8 + 4 + 2 + 1 = 31",
      "v += __shfl_down_sync(0xffffffff, v, offset)"]),
    # blind audit TA1 (was 'only lane 0 of each warp counted: warp_sum does not add the lanes
    # ... Hint: in warp_sum: for (...) v += __shfl_down_sync(...)', warp_sum being right)
    ("warp_sum_result_dropped",
     variant(KERNEL, ("    v = warp_sum(v);\n", "    warp_sum(v);\n")),
     ["only lane 0 of each warp counted", "the first call's result never reached v",
      "Hint: keep what warp_sum returns: v = warp_sum(v);"]),
    ("shfl_up_for_down",
     variant(KERNEL, ("__shfl_down_sync(0xffffffff, v, offset)", "__shfl_up_sync(0xffffffff, v, offset)")),
     ["__shfl_up_sync", "__shfl_down_sync"]),
    ("offsets_start_at_32", variant(KERNEL, ("int offset = 16;", "int offset = 32;")),
     ["offset 32", "16, 8, 4, 2, 1"]),
    ("stride_of_blockdim_alone", variant(KERNEL, ("i += blockDim.x * gridDim.x", "i += blockDim.x")),
     ["steps by blockDim.x", "blockDim.x * gridDim.x"]),
    # blind audit L11: the loop steps by gridDim.x alone (was 'the sum is 86547.89, NumPy's ...')
    ("stride_of_griddim_alone",
     variant(KERNEL, ("i += blockDim.x * gridDim.x", "i += gridDim.x")),
     ["steps by gridDim.x alone", "counted once for every thread that passes it",
      "i += blockDim.x * gridDim.x"]),
    ("tree_stops_one_step_early", variant(KERNEL, ("offset > 0;", "offset > 1;")),
     ["offset 1", "offset > 0"]),
    ("int_accumulator",
     variant(KERNEL, ("    float v = 0.0f;\n", "    int sum = 0;\n"),
             ("        v += x[i] * y[i];\n", "        sum += x[i] * y[i];\n"),
             ("    v = warp_sum(v);", "    float v = warp_sum(sum);")),
     ["adds up in an int", "keep each thread's sum in a float"]),
    ("warp_sum_assigns",
     variant(KERNEL, ("v += __shfl_down_sync(0xffffffff, v, offset);",
                      "v = __shfl_down_sync(0xffffffff, v, offset);")),
     ["though the blocks' atomicAdd ran", "v += __shfl_down_sync"]),
    # blind audit TNA-dot_product-1 (was 'warp_sum replaced v with the shuffled value ... Hint: v
    # += __shfl_down_sync', a warp_sum that is right): lane < warp, 0 in the first warp
    ("first_warp_tests_its_own_warp", variant(KERNEL, ("lane < warps ?", "lane < warp ?")),
     ["*result is 0 though the blocks' atomicAdd ran: the first warp read none of the warps' sums", "block 0's 4 warps stored warp_sums[0] to [3] and no lane read any",
      "lane < warp compares the lane with the thread's own warp, 0 in the first warp", "Hint: compare the lane with the block's number of warps: lane < warps ? warp_sums[lane] : 0.0f"]),
    # blind audit AJ (was '... the test that picks the lanes that read warp_sums[lane] let none through ...', block 0's 4 warps in a block of 3): warps = gridDim.x / 32, 0
    ("warps_from_the_grid", variant(KERNEL, ("warps = blockDim.x / 32", "warps = gridDim.x / 32")), ["the first warp read none of the warps' sums (on the simulator, a launch of 128 threads a block and 3 blocks: block 0's 4 warps stored", "warps = gridDim.x / 32 takes gridDim.x, the grid's number of blocks (2 here), where the block's threads belong: it came out 0", "Hint: a block of 96 threads has 96 / 32 = 3 warps: warps = blockDim.x / 32"]),
    # blind audit TGA-dot_product-1 (was 'the sum is 1078.455, NumPy's is 991.7638', the plan as hint)
    ("squares_of_x", variant(KERNEL, ("v += x[i] * y[i];", "v += x[i] * x[i];")),
     ["the sum of x's squares, x[i] * x[i], not of x[i] * y[i]", "v += x[i] * y[i]"]),
    ("keeps_the_last_product", variant(KERNEL, ("        v += x[i] * y[i];\n", "        v = x[i] * y[i];\n")),
     ["kept only its last product", "v += x[i] * y[i]"]),
    ("every_lane_adds_to_result",
     variant(KERNEL, ("        if (lane == 0)\n            atomicAdd(result, v);",
                      "        atomicAdd(result, v);")),
     ["every lane of the first warp added its value", "if (lane == 0) atomicAdd(result, v)"]),
    # blind audit TFA-dot_product-1 (was 'the sum is 513.8566, NumPy's is 991.7638'): a slot a block
    ("a_slot_a_block", variant(KERNEL, ("atomicAdd(result, v);", "atomicAdd(&result[blockIdx.x], v);")),
     ["block 0's share alone", "result[b]", "Hint: every block adds into the one float: atomicAdd(result, v)"]),
    # audit 2: three sums that got 'the sum is X, NumPy's Y'
    ("warp_sum_shfl_sync",
     variant(KERNEL, ("v += __shfl_down_sync(0xffffffff, v, offset);", "v += __shfl_sync(0xffffffff, v, offset);")),
     ["warp_sum uses __shfl_sync", "use __shfl_down_sync(0xffffffff, v, offset)"]),
    ("offset_minus_minus",
     variant(KERNEL, ("offset > 0; offset /= 2)", "offset > 0; offset--)")),
     ["offset steps down by 1 (offset--)", "halve the offset", "offset /= 2"]),
    ("loop_starts_at_thread_idx",
     variant(KERNEL, (LOOP, LOOP.replace("int i = blockIdx.x * blockDim.x + threadIdx.x;", "int i = threadIdx.x;"))),
     ["the loop starts at i = threadIdx.x, the same in every block", "i = blockIdx.x * blockDim.x + threadIdx.x"]),
    # audit 3: block 0 zeroes the result that every block adds into (the host's job): a race
    # between blocks, which passed as FAST (block 0 ran first on the simulator)
    ("block_0_zeroes_the_result",
     variant(KERNEL, ("    float v = 0.0f;\n", "    if (blockIdx.x == 0 && threadIdx.x == 0)\n"
                                               "        *result = 0.0f;\n    float v = 0.0f;\n")),
     ["a data race on result[0]", "an atomic is safe only against other atomics"]),
    # audit 3: every warp adds the warps' sums and adds the block's sum to *result
    ("every_warp_adds_the_block_s_sum",
     variant(KERNEL, (KERNEL[KERNEL.index("    if (warp == 0) {"):],
                      "    v = warp_sum(lane < warps ? warp_sums[lane] : 0.0f);\n"
                      "    if (lane == 0)\n        atomicAdd(result, v);\n}\n")),
     ["3 times the dot product, one time for each warp of a block", "if (warp == 0) {"]),
    # blind audit TTA-dot_product-1: the brace closing if (warp == 0) before the atomicAdd, so
    # lane 0 of every warp adds (was 'the sum is 1638.743, NumPy's is 991.7638' with the plan)
    ("atomic_outside_the_first_warp_s_block",
     variant(KERNEL, ("        if (lane == 0)\n            atomicAdd(result, v);          // one atomic a block\n    }",
                      "    }\n    if (lane == 0)\n        atomicAdd(result, v);          // one atomic a block")),
     ["the sum is 1638.74", "NumPy's is 991.7638: lane 0 of every warp added to *result, not only the first warp's: the atomicAdd is outside "
      "the if (warp == 0) block", "close if (warp == 0) { ... } after the atomicAdd"]),
    # audit A (2026-12): both were 'the sum is -inf, NumPy's is 991.7638' with the plan as hint
    ("warp_sums_not_shared",
     variant(KERNEL, ("__shared__ float warp_sums[32];", "float warp_sums[32];")),
     ["never touched shared memory", "an array of each thread's own",
      "declare it __shared__ float warp_sums[32]"]),
    ("sum_not_started_at_0",
     variant(KERNEL, ("    float v = 0.0f;\n", "    float v;\n")),
     ["v (declared at line ", "is read before anything is stored in it", "sum is built on that",
      "give v a value where it is declared", "starts at 0.0f"]),
    # audit I (I11): the warp's number from the thread's place in the grid (was 'the sum is
    # 513.8566, NumPy's is 991.7638' with the plan as hint)
    ("warp_number_from_the_grid_index",
     variant(KERNEL, ("warp = threadIdx.x / 32;", "warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;")),
     ["blocks past the first stored their warps' sums in the wrong elements of warp_sums",
      "thread 0 of block 1 stored warp_sums[4]", "never reached *result",
      "warp = threadIdx.x / 32"]),
    # blind audit AO (was 'the sum is 840.8658, NumPy's is 991.7638 ... Hint: each thread adds
    # x[i] * y[i] over its i (grid-stride loop), ...', the plan restated): the loop unrolled by
    # two, i and i + stride while i + stride < n, with no tail for a thread's last lone element
    ("grid_stride_unrolled_by_two_no_tail",
     variant(KERNEL, (LOOP, "    int stride = blockDim.x * gridDim.x;\n"
                            "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i + stride < n; "
                            "i += 2 * stride)\n"
                            "        v += x[i] * y[i] + x[i + stride] * y[i + stride];\n")),
     ["151 of the 1,001 products were never counted (the first is x[809] * y[809]), left over by "
      "threads 41 to 191 (1 each): the loop, unrolled by 2, handles i and i + stride while "
      "i + stride < n", "Hint: keep the unrolled loop and add the tail it leaves",
      "if (i < n) v += x[i] * y[i];"]),
]

# Right, but not the solution's way: each must pass
WARP_LOOP = ("    for (int offset = 16; offset > 0; offset /= 2)\n"
             "        v += __shfl_down_sync(0xffffffff, v, offset);\n")
RIGHT = {
    "butterfly": variant(KERNEL, (WARP_LOOP, "    for (int mask = warpSize / 2; mask > 0; mask >>= 1)\n"
                                             "        v += __shfl_xor_sync(0xffffffff, v, mask);\n")),
    "thread_0_adds_the_warps": variant(KERNEL, (KERNEL[KERNEL.index("    if (warp == 0) {"):],
        "    if (threadIdx.x == 0) {\n        float s = 0.0f;\n"
        "        for (unsigned int w = 0; w < warps; w++)\n            s += warp_sums[w];\n"
        "        atomicAdd(result, s);\n    }\n}\n")),
    "two_sums_a_thread": variant(KERNEL, (LOOP,
        "    int stride = blockDim.x * gridDim.x, i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    float a = 0.0f, b = 0.0f;\n"
        "    for (; i + stride < n; i += 2 * stride) {\n"
        "        a += x[i] * y[i];\n        b += x[i + stride] * y[i + stride];\n    }\n"
        "    if (i < n)\n        a += x[i] * y[i];\n    v = a + b;\n")),
    # blind audit AW (was 'NOT YET: the simulator's race check found a data race ... reads it'):
    # the Programming Guide's atomicCAS loop, whose first guess is a plain read the CAS checks
    "guide_s_atomiccas_loop": variant(KERNEL, (
        "__global__ void dot(",
        "__device__ void atomic_add_float(float *address, float val)\n{\n"
        "    unsigned int *p = (unsigned int *)address;\n    unsigned int old = *p, assumed;\n"
        "    do {\n        assumed = old;\n"
        "        old = atomicCAS(p, assumed, __float_as_uint(__uint_as_float(assumed) + val));\n"
        "    } while (assumed != old);\n}\n\n__global__ void dot("),
        ("atomicAdd(result, v);", "atomic_add_float(result, v);")),
}
