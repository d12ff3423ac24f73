"""The OpenCL sum per work-group's wrong kernels that leave out, misplace or mistake its barriers
(BARRIERS), or whose mistake its code shows (READ_IN_THE_CODE), for
tests/exercises/test_group_sum_opencl.py: parts of its WRONG in its shape (name -> (replacements
in the solution, words of the verdict's problem and of its hint, and what only Oclgrind names)),
and the solution's pieces that the variants replace (LOAD, STEP, FOLD)."""

LOAD = "tile[t] = i < n ? x[i] : 0.0f;\n    barrier(CLK_LOCAL_MEM_FENCE);"
STEP = "tile[t] += tile[t + stride];\n        barrier(CLK_LOCAL_MEM_FENCE);"
FOLD = ("    for (int stride = GROUP / 2; stride > 0; stride /= 2) {\n        if (t < stride)\n"
        "            " + STEP + "\n    }\n")
BARRIER = "put barrier(CLK_LOCAL_MEM_FENCE) after the load"

BARRIERS = {
    "no_barrier_after_load": ([(LOAD, LOAD.replace("barrier(CLK_LOCAL_MEM_FENCE);", ""))],
                              "data race", BARRIER, "race"),
    "no_barrier_in_the_fold": ([(STEP, STEP.replace("barrier(CLK_LOCAL_MEM_FENCE);", ""))],
                               "data race", BARRIER, "race"),
    # blind audit AC (was 'Oclgrind reported 381 data races, the first: ... Hint: work-items share
    # the tile: put barrier(CLK_LOCAL_MEM_FENCE) after the load ...', the fences not named): both
    # barriers written as mem_fence(CLK_LOCAL_MEM_FENCE), the fence flag's name taken for the call
    "fences_for_barriers": ([(LOAD, LOAD.replace("barrier(", "mem_fence(")),
                             (STEP, STEP.replace("barrier(", "mem_fence("))],
                            "call mem_fence(CLK_LOCAL_MEM_FENCE), a fence, where a barrier belongs",
                            "barrier(CLK_LOCAL_MEM_FENCE), CUDA's __syncthreads()", "race"),
    # blind audit AB (was 'a barrier that not every work-item of a work-group reached, at line
    # 34 ... Hint: ... (after the if, not inside it)', the barrier being after the if): the upper
    # half returns in the fold, before its barrier
    "upper_half_returns_in_the_fold": ([("        if (t < stride)\n            tile",
                                         "        if (t >= stride)\n            return;\n"
                                         "        tile")],
                                       "if (t >= stride) return; (line 20) sends work-items out "
                                       "of the kernel in the fold: only 64 of the 128 of "
                                       "work-group 0 reached the barrier at line 23",
                                       "do not return in the fold, only skip the add: if (t < "
                                       "stride) tile[t] += tile[t + stride]; then "
                                       "barrier(CLK_LOCAL_MEM_FENCE), outside the if", "barrier"),
    # blind audit AOB (was 'Oclgrind reported 248 data races, the first: ... at line 21 ... Hint:
    # work-items share the tile: put barrier(CLK_LOCAL_MEM_FENCE) after the load and after each
    # step of the fold, outside the ifs ...', the skipped barrier not named): CUDA's
    # warp-synchronous trick, the fold's barrier skipped on the last steps (stride <= 32)
    "barrier_skipped_on_the_last_steps": ([(STEP, STEP.replace(
                                              "\n        barrier",
                                              "\n        if (stride > 32)\n            barrier"))],
                                          ["the barrier at line 23 stands under if (stride > 32)",
                                           "the steps with stride 32, 16, 8, 4, 2 and 1",
                                           "do not run in lockstep"],
                                          "barrier(CLK_LOCAL_MEM_FENCE) after every step of the "
                                          "fold, with no if around it", "race"),
    "barrier_inside_the_if": ([("        if (t < stride)\n            " + STEP,
                                "        if (t < stride) {\n            " + STEP.replace(
                                    "\n        barrier", "\n            barrier") + "\n        }")],
                              "a barrier that not every work-item of a work-group reached",
                              "after the if, not inside it", "barrier"),
}

READ_IN_THE_CODE = {
    # blind audit AR (was "PASS: every work-group's sum is right ..."): the fold replaced by a
    # loop over the whole tile that every work-item runs, each adding all 128 elements and
    # storing the same sum in partial[g]
    "every_item_loops_over_the_tile": ([(FOLD, "    float s = 0.0f;\n"
                                               "    for (int j = 0; j < GROUP; ++j)\n"
                                               "        s += tile[j];\n"),
                                        ("    if (t == 0)\n        partial[get_group_id(0)] = "
                                         "tile[0];", "    partial[get_group_id(0)] = s;")],
                                       ["every work-item adds the whole tile: the loop at line "
                                        "20, for (int j = 0; j < GROUP; ++j), stands under no if",
                                        "all 128 work-items of a group store the same sum "
                                        "(line 22: partial[get_group_id(0)] = s;)"],
                                       "if (t < stride) tile[t] += tile[t + stride]; "
                                       "barrier(CLK_LOCAL_MEM_FENCE); } then if (t == 0) "
                                       "partial[get_group_id(0)] = tile[0];", ""),
    # blind audit AR (was "Oclgrind reported 192 accesses outside a buffer, ... at line 21 ...
    # Hint: ... only work-items t < stride add tile[t + stride]", the test the code had): a
    # semicolon right after the fold's if, so every work-item adds (a read past the tile, a race)
    "semicolon_after_the_fold_s_if": ([("        if (t < stride)\n", "        if (t < stride);\n")],
                                      ["the if at line 20, if (t < stride);, does nothing: its "
                                       "body is a lone semicolon", "tile[t] += tile[t + stride]; "
                                       "(line 21), runs in every work-item"],
                                      "if (t < stride) tile[t] += tile[t + stride];", ""),
}
