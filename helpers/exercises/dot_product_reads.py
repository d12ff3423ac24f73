"""The first warp's reads of the warps' sums in the dot-product exercise (notebook 07) past the
sums the block's warps wrote: all 32 lanes reading one each, or one lane too many; told of the
block of the case the verdict quotes, whose launch on the simulator they come from."""

from __future__ import annotations

from helpers.exercises.dot_product_models import on_the_simulator


def reads_past_the_warps(kept, warps, words):
    """(problem, hint) where block 0's reads of shared memory (in ``kept``, the accesses of a
    launch on the simulator of ``warps`` warps a block) were lanes 0 to 31, or 0 to ``warps``, of
    the first warp reading element lane: past the ``warps`` sums the block's warps wrote
    (``words``: the kernel body's, ``microscope.body_words``, which tell lane <= warps)."""
    reads = kept[kept["shared"] & ~kept["write"] & (kept["block"] == 0)] if kept is not None \
        else None
    if reads is None or not len(reads) or (reads["index"] != reads["thread"]).any():
        return
    lanes, array = set(reads["thread"].tolist()), reads[0]["array"]
    if warps < 32 and lanes == set(range(32)):
        yield (f"lanes 0 to 31 of the first warp read {array}[0] to [31], where "
               f"{_sums_written(warps, array)} ({on_the_simulator(warps)}): the first warp added "
               "all 32 elements, the ones no warp wrote too, which hold whatever shared memory "
               "held (NaN on the simulator), as warps = 32 (the array's size) or no test on the "
               "lane does", "a block has blockDim.x / 32 warps, not 32: add only the sums they "
               "wrote, lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f (warps = blockDim.x / 32)")
    if lanes == set(range(warps + 1)):
        yield one_sum_past(words, warps, array)


def _sums_written(warps, array):
    """Which elements of ``array`` the block's ``warps`` warps wrote, in words."""
    if warps == 1:
        return f"the block's one warp wrote only {array}[0]"
    return f"the block's {warps} warps wrote only {array}[0] to [{warps - 1}]"


def one_sum_past(words, warps, array):
    """(problem, hint) where lanes 0 to ``warps`` of the first warp read ``array`` (the warp
    sums), one more than the block's ``warps`` warps wrote: the lane test written lane <= warps
    where ``words`` (the kernel body's, ``microscope.body_words``) has it, else the warps counted
    one too many (blockDim.x / 32 + 1, a rounding up)."""
    sums = "the one sum the block's one warp" if warps == 1 else \
        f"the {warps} sums the block's {warps} warps"
    read = (f"lane {warps} of the first warp read {array}[{warps}], one past {sums} wrote "
            f"({on_the_simulator(warps)}: lanes 0 to {warps} read), and that element holds "
            "whatever shared memory held (NaN on the simulator)")
    if any(words[i:i + 2] == ["lane", "<="] for i in range(len(words) - 1)):
        return (f"{read}: the test lane <= warps lets lane warps through", "the warps' sums "
                "are warp_sums[0] to warp_sums[warps - 1]: lane < warps ? warp_sums[lane] : 0.0f")
    return (f"{read}: the lane test is right, but warps counts {warps + 1}, one more than the "
            f"block's {warps} (a + 1 or a rounding up of blockDim.x / 32)", "a block's threads "
            "come in whole warps (blockDim.x is a multiple of 32), so it has exactly "
            "blockDim.x / 32 of them: warps = blockDim.x / 32")
