"""The NumPy models of notebook 07's dot product that ``helpers.exercises.dot_product`` compares
a kernel's sum with: the plan's wrong shapes, modelled whole (``SHAPES``, ``model``), and the sums
of known parts of the products (``wrong_sums``); and the hint for a store into warp_sums that
races with a warp's sum (``store_before_the_sums``)."""

from __future__ import annotations

import numpy as np

FROM_16 = "for (int offset = 16; offset > 0; offset /= 2): offsets 16, 8, 4, 2, 1"


SHAPES = [  # (how model() writes the plan, problem, hint): its wrong shapes, each named as itself
    (dict(shuffle="up"),
     "warp_sum uses __shfl_up_sync, which hands each lane the v of the lane offset places below "
     "it: lane 0 has none below, so it doubles its own value at each step instead of collecting "
     "the warp's sum", "use __shfl_down_sync(0xffffffff, v, offset), which hands each lane the v "
     "of the lane offset places above it: after offsets 16, 8, 4, 2 and 1 the warp's sum is in "
     "lane 0"),
    (dict(offsets=(32, 16, 8, 4, 2, 1)),
     "warp_sum starts at offset 32, past the warp's last lane: at that step every lane gets its "
     "own value back and doubles it, so each warp sum is twice too large (the dot product 4 "
     "times, warp_sum being used twice)", "start at half the warp, 16: " + FROM_16),
    (dict(offsets=(8, 4, 2, 1)), "warp_sum starts at offset 8: lane 0 ends with the sum of the "
     "warp's first 16 lanes only", "start at half the warp, 16: " + FROM_16),
    (dict(offsets=(16, 8, 4, 2)), "warp_sum stops one step early, before offset 1: lane 0 ends "
     "with the sum of the even lanes only",
     "run the loop down to offset 1 (offset > 0, not offset > 1): " + FROM_16),
    (dict(stride="block"), "the loop steps by blockDim.x alone: each block walks from its first "
     "element to the end, so the blocks' walks overlap and most elements are counted by several "
     "blocks", "step by the whole grid, i += blockDim.x * gridDim.x, so that the blocks share "
     "the elements out"),
    (dict(sum_type="int"), "each thread adds up in an int: adding x[i] * y[i] to an int keeps "
     "only the whole part, so the fractions are lost",
     "keep each thread's sum in a float: float v = 0.0f, then v += x[i] * y[i]"),
    (dict(keep="last"), "each thread kept only its last product: v = x[i] * y[i] replaces the "
     "sum at each turn of the loop", "add each product to the thread's sum: v += x[i] * y[i]"),
    (dict(adders="every lane"), "every lane of the first warp added its value to *result, not "
     "lane 0 alone, which holds the block's sum", "if (lane == 0) atomicAdd(result, v): one "
     "atomic a block"),
    (dict(shuffle="index"), "warp_sum uses __shfl_sync, which hands every lane the v of lane "
     "`offset` itself, not of the lane offset places above", "use __shfl_down_sync(0xffffffff, v, "
     "offset), the v of the lane offset places above: after offsets 16, 8, 4, 2 and 1 the "
     "warp's sum is in lane 0"),
    (dict(shuffle="swapped"), "__shfl_down_sync's value and offset are swapped, "
     "__shfl_down_sync(0xffffffff, offset, v): every lane hands on the offset itself, not its v, "
     "so warp_sum only adds 16 + 8 + 4 + 2 + 1 = 31 to lane 0's own value instead of collecting "
     "the warp's 32 values", "the value to hand on comes second and the distance to the lane it "
     "comes from third: v += __shfl_down_sync(0xffffffff, v, offset)"),
    (dict(offsets=tuple(range(16, 0, -1))), "warp_sum's offset steps down by 1 (offset--): "
     "offsets 16, 15, 14, ..., 1 add the lanes' values into each other again and again",
     "halve the offset at each step: " + FROM_16),
    (dict(start="block"), "the loop starts at i = threadIdx.x, the same in every block: the "
     "blocks all add the same elements, and the others are never added",
     "start at the thread's place in the grid, i = blockIdx.x * blockDim.x + threadIdx.x, and "
     "step by blockDim.x * gridDim.x"),
    (dict(stored_lane=31), "lane 31 stored its warp's sum in warp_sums[warp], but after "
     "warp_sum's __shfl_down_sync the warp's sum is in lane 0: lane 31, with no lane above it, "
     "got its own value back at each step, so each warp brought 32 times lane 31's own sum",
     "if (lane == 0) warp_sums[warp] = v: __shfl_down_sync hands each lane the value of the lane "
     "offset places above, so the sums collect downwards, in lane 0"),
]


def model(products, block, grid, stride="grid", sum_type="float", shuffle="down",
          offsets=(16, 8, 4, 2, 1), keep="sum", adders="lane 0", shuffle_adds=True,
          start="grid", stored_lane=0) -> float:
    """The sum a kernel adds to *result whose loop starts at the thread's place in the grid or in
    its block (``start``) and steps by the grid or the block (``stride``), each thread adding up
    in a float or an int (``sum_type``; ``keep="last"``: keeping only its last product), its
    warp_sum's ``shuffle`` ("down", "up", "index": lane ``offset`` itself, __shfl_sync, or
    "swapped": the offset handed on in v's place) going
    through ``offsets``: lane 0's sum over the last axis (32 lanes), where a shuffle whose source
    lane is outside the warp hands a lane its own value, as CUDA's do (``shuffle_adds=False``: v
    = the shuffled value, not v +=); ``adders="every lane"``: every lane of the first warp
    adding its value to *result, not lane 0 alone; ``stored_lane``: the lane whose v each warp
    stores in warp_sums."""
    def warp_sum(v):
        for offset in offsets:
            bits = offset & 31  # a GPU reads the offset's low 5 bits only
            source = {"up": lane - bits, "index": 0 * lane + bits}.get(shuffle, lane + bits)
            shuffled = np.where((source >= 0) & (source < 32), v[..., np.clip(source, 0, 31)], v)
            if shuffle == "swapped":  # every lane hands on the offset: its own or its source's
                shuffled = np.full(v.shape, float(offset))
            v = v + shuffled if shuffle_adds else shuffled
        return v

    n, threads, warps, lane = products.size, block * grid, block // 32, np.arange(32)
    step = threads if stride == "grid" else block
    start, sums = np.arange(threads) % (block if start == "block" else threads), np.zeros(threads)
    for turn in range(-(-n // step)):  # the loop's turns taken for all the threads at once
        i = start + turn * step
        added = np.where(i < n, products[np.minimum(i, n - 1)], 0.0).astype(np.float32)
        sums = np.trunc(sums.astype(np.float32) + added) if sum_type == "int" else \
            np.where(i < n, added, sums) if keep == "last" else sums + added
    first_warp = np.zeros((grid, 32))
    first_warp[:, :warps] = warp_sum(sums.reshape(grid, warps, 32))[..., stored_lane]
    total = warp_sum(first_warp)
    return float((total if adders == "every lane" else total[..., 0]).sum())


def wrong_sums(products, block, grid):
    """(sum, problem, hint) of the known mistakes: the plan's wrong shapes, known parts' sums."""
    for shape, problem, hint in SHAPES:
        yield model(products, block, grid, **shape), problem, hint
    yield from _loop_mistakes(products, block, grid)
    i, warps, threads = np.arange(products.size), block // 32, block * grid
    thread = i % threads % block               # the thread of its block that handles element i
    whole = 1 << (warps.bit_length() - 1)      # the largest power of two up to warps
    for part, problem, hint in (
            ((i % block == 0) & (i < threads), "only thread 0 of each block counted, and only its "
             "own element (the stub as shipped)", "follow the TODOs: a grid-stride loop, warp_sum "
             "with __shfl_down_sync, the warps' sums in warp_sums, then one atomicAdd a block"),
            (thread == 0, "only thread 0 of each block counted: warp_sum adds nothing (so neither "
             "a warp's lanes nor, through them, the block's warps are added together)",
             "warp_sum must add the 32 lanes' values: v += __shfl_down_sync(0xffffffff, v, "
             "offset) for offset = 16, 8, 4, 2, 1; then the warps' sums go through warp_sums"),
            (thread % 32 == 0, "only lane 0 of each warp counted, and of every warp: the first "
             "warp's warp_sum added the warps' sums, so warp_sum adds lanes; the first call's "
             "result never reached v, and lane 0 stored its own sum in warp_sums (warp_sum(v); "
             "alone throws the result away: v goes in by value)", "keep what warp_sum returns: "
             "v = warp_sum(v); before lane 0 stores v in warp_sums[warp]"),
            (thread < 32, "only the first warp of each block counted", "lane 0 of every warp "
             "writes its sum to warp_sums[warp]; after a __syncthreads() the first warp adds "
             "warp_sums[0 .. blockDim.x / 32 - 1] with warp_sum")):
        yield products[part].sum(), problem, hint
    if whole < warps:
        yield (products[thread < 32 * whole].sum(),
               f"the warps past the first {whole} of the {warps} in each block were not counted",
               f"a tree that halves the number of warp sums drops the odd ones when there is no "
               f"power of two of them (here {warps}): add them with warp_sum over the lanes below "
               "blockDim.x / 32, the other lanes adding 0, which works for any number of warps")
    if threads < i.size:
        yield (products[i < threads].sum(), f"only the first {threads:,} elements (one a thread) "
               "were counted", "the grid has fewer threads than elements: a grid-stride loop, "
               "for (int i = ...; i < n; i += blockDim.x * gridDim.x)")
    yield (products.sum() + products[thread < 32].sum(), "each block's first warp's sum was "
           "counted twice: the second warp_sum added to v, v += warp_sum(...), and lane 0 of the "
           "first warp still held its own warp's sum from the first", "replace v with the "
           "warps' total: v = warp_sum(lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f)")
    yield from _every_warp_added(products, thread, warps)
    if grid > 1:
        yield (grid * products.sum(),
               f"the sum is {grid} times the dot product: every block counted every element",
               "start at i = blockIdx.x * blockDim.x + threadIdx.x and step by blockDim.x * "
               "gridDim.x, so that the blocks share the elements out")
    if warps > 1:
        yield (warps * products[thread < 32].sum(), f"each block added its first warp's sum "
               f"{warps} times, the others' never: the first warp's lanes all read warp_sums[0] "
               "(warp_sums[warp], warp being 0 for all of them), where lane l brings warp l's "
               "sum", "v = warp_sum(lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f)")
        yield (warps * products.sum(),
               f"the sum is {warps} times the dot product, one time for each warp of a block: "
               "every warp, not the first alone, added the warps' sums and atomically added the "
               "block's sum to *result", "only the first warp adds the warps' sums: "
               "if (warp == 0) { v = warp_sum(lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f); "
               "if (lane == 0) atomicAdd(result, v); }")


def _loop_mistakes(products, block, grid):
    """(sum, problem, hint) of a grid-stride loop's wrong step or start."""
    yield (by_blocks(products, block * grid, grid), "the loop steps by gridDim.x alone, the "
           "number of blocks, not of threads: the threads' walks overlap, so each x[i] * y[i] was "
           "counted once for every thread that passes it (thread t adds i = t, t + gridDim.x, "
           "t + 2 * gridDim.x, ...)", "step by every thread of the grid: i += blockDim.x * "
           "gridDim.x")
    yield from _start_with_grid_dim(products, block, grid)


def _start_with_grid_dim(products, block, grid):
    """The sum of a grid-stride loop whose start multiplies blockIdx.x by gridDim.x, not by
    blockDim.x (i = blockIdx.x * gridDim.x + threadIdx.x), stepping rightly by the grid's threads:
    the blocks' walks start gridDim.x apart, so they overlap (or leave gaps)."""
    n, threads = products.size, block * grid
    if grid < 2 or grid == block:
        return
    visits = np.zeros(n)
    for start in (b * grid + t for b in range(grid) for t in range(block)):
        visits[start::threads] += 1
    twice, never = int((visits > 1).sum()), np.flatnonzero(visits == 0)
    told = [f"{twice:,} of the {n:,} products counted more than once"] if twice else []
    if never.size:
        told.append(f"{never.size:,} never (x[{never[0]}] * y[{never[0]}] the first)")
    yield (float(visits @ products), "the loop starts at blockIdx.x * gridDim.x + threadIdx.x: "
           f"block 1 starts at element {grid}, not {block}: blockIdx.x is multiplied by the "
           f"number of blocks, gridDim.x = {grid}, not by a block's threads, blockDim.x = "
           f"{block}, so the blocks' walks " + ("overlap: " if twice else "leave gaps: ")
           + " and ".join(told), "start at the thread's place in the grid, "
           "i = blockIdx.x * blockDim.x + threadIdx.x (the step, blockDim.x * gridDim.x, is "
           "right)")


def _every_warp_added(products, thread, warps):
    """The atomicAdd outside the first warp's block: lane 0 of every warp adds, warps past the
    first their own warp's sum (``thread``: element i's thread in its block), warp 0 the block's."""
    if warps < 2:
        return
    twice = products.sum() + products[thread >= 32].sum()
    yield (twice, f"the sum is {twice:.7g}, NumPy's is {products.sum():.7g}: lane 0 of every "
           "warp added to *result, not only the first warp's: the atomicAdd is outside the "
           "if (warp == 0) block, so each block's warps past the first added their own warp's "
           "sum (from the first warp_sum) on top of the block's sum, which already holds it",
           "only the first warp's lane 0 adds the block's sum: close if (warp == 0) { ... } "
           "after the atomicAdd: if (warp == 0) { v = warp_sum(lane < blockDim.x / 32 ? "
           "warp_sums[lane] : 0.0f); if (lane == 0) atomicAdd(result, v); }")


def by_blocks(products, threads, grid) -> float:
    """The sum of a grid-stride loop that steps by ``grid`` (gridDim.x) alone: thread t adds the
    products t, t + grid, t + 2 grid, ... up to n, so product i is counted once for each thread t
    of the grid with t = i (mod grid) and t <= i; each thread's sum is the rest of its residue
    class's products from t on (a running sum from the end)."""
    n = products.size
    rows = -(-n // grid)
    padded = np.zeros(rows * grid)
    padded[:n] = products
    rest = np.cumsum(padded.reshape(rows, grid)[::-1], axis=0)[::-1].ravel()
    return float(rest[:min(threads, n)].sum())


def first_warp_read_nothing(kept, probe, text, case):
    """(problem, hint) where a trace of the first block (``kept``: its accesses in a launch of
    ``probe``, its n, block and grid) shows every warp's sum stored in shared memory and no lane
    reading any: the first warp's test on the lane let none through, as lane < warp does (warp is
    0 there), or lane < warps with warps counted from gridDim.x; ``text``: ``microscope.
    kernel_words``' reading of the kernel's text, which tells that test (None: not read);
    ``case``: the case at hand, its block and grid."""
    warps = probe["block"] // 32
    ours = kept[kept["shared"] & (kept["block"] == 0)] if kept is not None else None
    if ours is None or (~ours["write"]).any() or \
            sorted(set(ours["index"].tolist())) != list(range(warps)):
        return
    (bound, assigned, said), block = _lane_bound(text), case["block"]
    hint = ("compare the lane with the block's number of warps: lane < warps ? warp_sums[lane] : "
            "0.0f, warps = blockDim.x / 32")
    test = "the test that picks the lanes that read warp_sums[lane] let none through"
    if bound == "warp":
        test = ("its test lane < warp compares the lane with the thread's own warp, 0 in the "
                "first warp: lane < 0 holds for no lane")
    elif "gridDim" in said:
        test = (f"{bound} = {assigned} takes gridDim.x, the grid's number of blocks ({case['grid']} "
                f"here), where the block's threads belong: it came out 0 and lane < {bound} let no "
                "lane through")
        hint = (f"a block of {block} threads has {block} / 32 = {block // 32} warps: {bound} = "
                "blockDim.x / 32, the block's threads over 32, whatever the grid")
    yield (f"*result is 0 though the blocks' atomicAdd ran: the first warp read none of the "
           f"warps' sums (on the simulator, a launch of {probe['block']} threads a block and "
           f"{probe['grid']} blocks: block 0's {warps} warps stored warp_sums[0] to "
           f"[{warps - 1}] and no lane read any): {test}, so every lane added 0 and each block's "
           "sum was 0", hint)


def _lane_bound(text):
    """(the word the first warp's test lane < word ? compares the lane with, the text the kernel
    body assigns that word and its words, "" and [] where none) from ``microscope.kernel_words``'
    ``text``."""
    if not text:
        return None, "", []
    source, tokens, words, body, end = text
    bound = next((words[i + 2] for i in range(body, end - 3) if words[i:i + 2] == ["lane", "<"]
                  and words[i + 3] == "?"), None)
    at = next((i + 2 for i in range(body, end - 2) if words[i:i + 2] == [bound, "="]), None)
    if at is None or ";" not in words[at:end]:
        return bound, "", []
    last = words.index(";", at) - 1
    return bound, source[tokens[at].start:tokens[last].end], words[at:last + 1]


def on_the_simulator(warps):
    """The launch a finding of the simulator's comes from, told with it: its block is not the one
    of the case the verdict ends with (a block of 96 threads has 3 warps, this launch 4)."""
    return (f"on the simulator, in a launch of {warps} warp{'s' * (warps > 1)} a block "
            f"(blockDim.x = {32 * warps})")


def read_not_added(kept, warps, words):
    """(problem, hint) for a sum that is each block's first warp's alone where a trace of the
    first block (``kept``: its accesses, ``warps`` warps a block) shows lane 0 of every warp
    storing its warp's element of shared memory and lanes 0 to ``warps`` - 1 of the first warp
    reading one each: the sums were read, but never added together (no warp_sum over them), or
    added into a variable that lane 0's atomicAdd does not add (the kernel body's ``words``, from
    ``microscope.body_words``, tell), so lane 0's atomicAdd took the one it read itself."""
    ours = kept[kept["shared"] & (kept["block"] == 0)] if kept is not None else None
    if ours is None or not len(ours):
        return
    stores, reads = ours[ours["write"]], ours[~ours["write"]]
    if sorted(zip(stores["thread"].tolist(), stores["index"].tolist())) != \
            [(32 * w, w) for w in range(warps)] or \
            sorted(zip(reads["thread"].tolist(), reads["index"].tolist())) != \
            [(w, w) for w in range(warps)]:
        return
    array = ours[0]["array"]
    seen = (f"{array} was filled and read ({on_the_simulator(warps)}: lane 0 "
            f"of each warp stored {array}[0] to [{warps - 1}] and lanes 0 to {warps - 1} of the "
            "first warp read them), but the sum is each block's first warp's alone")
    if aside := _sum_left_aside(words, array):
        into, added = aside
        yield (f"{seen}: the first warp's warp_sum over them went into {into}, which nothing "
               f"uses: lane 0's atomicAdd adds {added}, still its own warp's sum from the first "
               f"warp_sum", f"add the block's sum: atomicAdd(result, {into}) (or assign it to "
               f"{added}: {added} = warp_sum(...))")
        return
    yield (f"{seen}: lane 0's atomicAdd added only {array}[0], the value it read itself: the "
           "values the first warp's lanes read were never added together with warp_sum",
           "add them before lane 0's atomicAdd: v = warp_sum(lane < blockDim.x / 32 ? "
           f"{array}[lane] : 0.0f)")


def _sum_left_aside(words, array):
    """(the variable that the kernel body's ``words`` assign the one call over ``array``'s
    elements to, name = function(... array[...] ...);, the word that atomicAdd(result, word)
    adds), where that word is another variable; None else."""
    sums = [words[i - 1] for i in range(1, len(words) - 3) if words[i] == "="
            and words[i + 2] == "(" and array in words[i:words.index(";", i)]]
    added = [words[i + 4] for i in range(len(words) - 5)
             if words[i:i + 4] == ["atomicAdd", "(", "result", ","] and words[i + 5] == ")"]
    if len(sums) == 1 and len(added) == 1 and sums[0] != added[0]:
        return sums[0], added[0]
    return None


def wrapped_sums(kept, warps, got, want):
    """(problem, hint) for a sum ``got`` (NumPy's ``want``) where all 32 lanes of the first warp
    read the warps' sums (block 0's reads of shared memory in ``kept``, the accesses of a launch
    on the simulator of ``warps`` warps a block), lane l element l % warps: the block's sums read
    around again past its warps, each added about 32 / warps times."""
    reads = kept[kept["shared"] & ~kept["write"] & (kept["block"] == 0)] if kept is not None \
        else None
    lanes = None if reads is None else reads["thread"]
    if lanes is None or warps >= 32 or set(lanes.tolist()) != set(range(32)) or (reads["index"] != lanes % warps).any():
        return
    array = reads[0]["array"]
    yield (f"the sum is {got:.7g}, {got / want:.3g} times NumPy's {want:.7g}: all 32 lanes of the "
           f"first warp read a warp's sum, lane l reading {array}[l % warps] (on the simulator, "
           f"{warps} warps a block: lanes 0 to 31 read {array}[0] to [{warps - 1}] over and over), "
           "so each warp's sum was added about 32 / warps times", "only lanes 0 to warps - 1 "
           f"read a sum, the lanes past the block's warps add 0: warp_sum(lane < warps ? "
           f"{array}[lane] : 0.0f), warps = blockDim.x / 32")


def store_before_the_sums(err):
    """The hint for a store into warp_sums[w] by a thread of another warp, not its lane 0
    (zeroing warp_sums), that races with lane 0 of warp w storing its warp's sum there (no
    barrier between): the race check's error ``err``, read by its fields."""
    ours = [a for a in (err.first, err.second) if a.thread[0] == 32 * err.element]
    other = [a for a in (err.first, err.second)
             if a.thread[0] // 32 != err.element and a.thread[0] % 32]   # not a lane 0
    if len(ours) == len(other) == 1:
        yield (f"thread {other[0].thread[0]}'s store into warp_sums[{err.element}] at "
               f"{other[0].line} (as when the first warp zeroes warp_sums) needs a "
               f"__syncthreads() after it, before lane 0 of warp {err.element} stores its warp's "
               "sum there, or either may come last; or leave it out: the first warp reads only "
               "the sums the warps stored, warp_sum(lane < blockDim.x / 32 ? warp_sums[lane] : "
               "0.0f)")


def returned_before_warp_sum(failure):
    """The lanes of a block past n, returned under an if on a thread's index before warp_sum and
    the __syncthreads() (``barrier_if.returns_before_barriers``, the kernel's words): the crash's
    waiting lanes are exactly those of the warp that n cuts, below n."""
    from helpers.exercises.barrier_if import returns_before_barriers

    err, launch = failure.error, failure.launch
    if failure.kind != "warp mask" or launch is None or not err.block or failure.kernel is None:
        return
    block, bx, n = failure.block[0], err.block[0], int(launch.args[3])
    k, waiting = n - bx * block, tuple(getattr(err, "waiting", None) or ())
    if not 0 < k < block or not k % 32 or waiting != tuple(range(k // 32 * 32, k)) or \
            not (found := returns_before_barriers(failure.kernel)):
        return
    (line, cond, _), warp, last = found[0], k // 32, block // 32 - 1
    rest = "" if warp == last else f" and all of warp {last}" if warp + 1 == last else \
        f" and all of warps {warp + 1} to {last}"
    yield (f"the return at line {line}, under if ({' '.join(cond).replace(' . ', '.')}), sends "
           f"the threads past n home before warp_sum: in block {bx} (n = {n}) threads {k} to "
           f"{block - 1} had returned: lanes {k % 32} to 31 of warp {warp}{rest}, so the shuffle "
           f"at line {err.line.rsplit(':', 1)[1]}, whose mask 0x{err.mask:08x} names them, "
           "waits for lanes that never come", "drop the return: the grid-stride loop's i < n "
           "already leaves v = 0 for a thread past n, which then adds 0 to its warp's sum, and "
           "every lane of the warp reaches warp_sum")
