"""The sepia_x16 exercise's variants for tests/exercises/test_sepia_x16.py: the solution, the
right kernels that move their bytes one at a time (SLOW), and the known-wrong kernels (WRONG:
name -> (the replacements in the solution, a piece of the verdict that names the mistake))."""

from kernel_sources import solution

KERNEL = solution("sepia_x16.cu")
TAIL = "        for (int i = 16 * groups; i < n; i++)  // the tail: fewer than 16 pixels\n"
STORES = ("        dst[1] = make_uint4(res[4], res[5], res[6], res[7]);\n"
          "        dst[2] = make_uint4(res[8], res[9], res[10], res[11]);\n")
GROUP_START = "    if (t < groups) {\n"
GROUP_BODY = KERNEL[KERNEL.index(GROUP_START) + len(GROUP_START):KERNEL.index("    } else if")]
BYTEWISE = """        for (int p = 16 * t; p < 16 * t + 16; p++)   // right, but one byte at a time
            sepia_pixel(rgb, out, p);
"""

DST = "        uint4 *dst = reinterpret_cast<uint4 *>(out) + 3 * (size_t)t;\n"
BYTE_STORES = """        for (int k = 0; k < 48; k++)                 // right, but one byte at a time
            out[48 * (size_t)t + k] = (res[k >> 2] >> (8 * (k & 3))) & 0xFFu;
"""
# right but slow: the replacements in the solution
SLOW = {"bytewise": [(GROUP_BODY, BYTEWISE)],
        "byte_stores": [(DST + "        dst[0] = make_uint4(res[0], res[1], res[2], res[3]);\n"
                         + STORES, BYTE_STORES)]}

SHIFT = "(w[k >> 2] >> (8 * (k & 3)))"
READ_AS_FLOAT = "float r = byte_of(w, 3 * p), g = byte_of"
READ_AS_CHAR = "char r = byte_of(w, 3 * p), g = byte_of"
CHANNEL_SUM = "return (unsigned int)fminf(wr * r + wg * g + wb * b + 0.5f, 255.0f);"
SATURATED = "return (unsigned int)fmaxf(fminf(wr * r + wg * g + wb * b + 0.5f, 255.0f), 0.0f);"

LOADS = ("        uint4 a = src[0], b = src[1], c = src[2];          // 48 bytes: 16 pixels of RGB\n"
         "        unsigned int w[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w};\n")
FLOAT4_LOADS = ("        const float4 *fsrc = reinterpret_cast<const float4 *>(rgb) + 3 * (size_t)t;\n"
                "        float4 a = fsrc[0], b = fsrc[1], c = fsrc[2];\n"
                "        unsigned int w[12] = {" + ", ".join(f"(unsigned int){v}.{f}" for v in "abc"
                                                     for f in "xyzw") + "};\n")

# name: (replacements in the solution, a piece of the expected verdict)
WRONG = {
    # blind audit TOB-sepia_x16-1: res[10] twice (was 'elements 44 to 47 hold ... of 40 to 43')
    "res_10_twice_in_dst_2": ([("res[10], res[11])", "res[10], res[10])")], "dst[2]'s w component "
                              "(bytes 44 to 47 of each group) holds res[10], where res[11] belongs"),
    # blind audit W12 (was 'in every group of 48 elements of out, only the first 15 are right
    # ... check the indices of the loads that feed them'): the three uint4 taken 4 apart
    "uint4s_taken_4_apart": ([("uint4 a = src[0], b = src[1], c = src[2];",
                               "uint4 a = src[0], b = src[4], c = src[8];")],
                             "thread t took its three uint4 4 apart, src[0], src[4] and src[8] "
                             "(counting 32-bit words"),
    # blind audit TAAB-sepia_x16-1: t = threadIdx.x (was '20928 of 24000 bytes of out were never
    # written (the first in pixel 1024, of thread 64) ... Hint: thread t must convert pixels 16t
    # to 16t + 15: ...', what t does restated)
    "t_without_the_block_offset": ([("blockIdx.x * blockDim.x + threadIdx.x;", "threadIdx.x;")],
                                   "only pixels 0 to 1023 of the 8000 were written, block 0's "
                                   "groups 0 to 63 (n = 8000: 500 groups, 8 blocks of 64 threads): "
                                   "every block converted block 0's groups: t took no block offset "
                                   "(t = threadIdx.x"),
    "uint4s_taken_2_apart": ([("uint4 a = src[0], b = src[1], c = src[2];",
                               "uint4 a = src[0], b = src[2], c = src[4];")],
                             "Hint: src points at thread t's first uint4, and its group's 48 bytes "
                             "are the three side by side: uint4 a = src[0], b = src[1], c = src[2]"),
    # blind audit Q12 (was 'in every group of 48 elements of out, only the first 3 are right ... check the indices of the loads that feed them')
    "pixels_read_4_bytes_apart": ([("byte_of(w, 3 * p), g = byte_of(w, 3 * p + 1), bl = "
                                    "byte_of(w, 3 * p + 2)", "byte_of(w, 4 * p), g = byte_of(w, "
                                    "4 * p + 1), bl = byte_of(w, 4 * p + 2)")],
                                  "Hint: RGB pixels are 3 bytes: byte_of(w, 3 * p + c)"),
    # blind audit S12 (was 'the red output is 1.355 r + 0.003 g + 0.003 b, where the matrix has
    # ... Hint: each output channel comes from the input's r, g and b ...')
    # blind audit THB-sepia_x16-1 (was 'in every group of 48 elements of out, only the first 3
    # are right ... Hint: ... check the indices of the loads that feed them')
    "loads_without_the_3": ([("float r = byte_of(w, 3 * p), g = byte_of(w, 3 * p + 1), bl = "
                              "byte_of(w, 3 * p + 2);", "float r = byte_of(w, p), g = byte_of(w, "
                              "p + 1), bl = byte_of(w, p + 2);")],
                            "the loads lack the factor 3 (byte_of(w, p), byte_of(w, p + 1), "
                            "byte_of(w, p + 2)), which the stores have"),
    "green_blue_from_red_plus_1_and_2": ([("g = byte_of(w, 3 * p + 1), bl = byte_of(w, 3 * p + 2)",
                                           "g = byte_of(w, 3 * p) + 1, bl = byte_of(w, 3 * p) + 2")],
                                         "red value plus 1 and plus 2: the + 1 and + 2 went onto the "
                                         "byte byte_of(w, 3 * p) returned, red's, not onto its index "
                                         "(n = 1961 pixels, block = (256, 1, 1), grid = (1, 1)). Hint: "
                                         "add to the byte's index, inside the call: g = byte_of(w, 3 "
                                         "* p + 1), bl = byte_of(w, 3 * p + 2)"),
    # blind audit TEB-sepia_x16-1: sepia_channel without its clamp (was '368 of 5856 values are
    # wrong ... Hint: ...; round with + 0.5f and clamp to 255', the clamp one clause of many)
    "channel_not_clamped": ([(CHANNEL_SUM, "return (unsigned int)(wr * r + wg * g + wb * b + 0.5f);")],
                            "sepia_channel does not clamp: a sum past 255 keeps its bits above the "
                            "byte"),
    # blind audit TGB-sepia_x16-1: the clamp at 256.0f (was '368 of 5856 values are wrong ...
    # Hint: ...; round with + 0.5f and clamp to 255', the bound not named)
    "channel_clamped_at_256": ([(CHANNEL_SUM, CHANNEL_SUM.replace("255.0f", "256.0f"))],
                               "sepia_channel clamps at 256.0f, not 255.0f: a sum of 255.5 or "
                               "more converts to 256, which a byte cannot hold"),
    "no_tail": ([(TAIL, "        for (int i = 16 * groups; i < 16 * groups; i++)\n")],
                "(the tail past the last whole group of 16) were never written"),
    "tail_by_the_spare_threads": ([("} else if (t == groups) {", "} else if (t != groups) {")],
                                  "(the tail past the last whole group of 16) were never written"),
    "tail_loop_to_n": ([("i < n; i++)", "i <= n; i++)")],
                       "Hint: the tail's pixels are 16 * groups to n - 1: stop the loop at n"),
    "tail_from_16_plus_groups": ([("int i = 16 * groups;", "int i = 16 + groups;")],
                                 "the last 7 pixels (the tail past the last whole group of 16)"),
    "last_thread_takes_a_whole_group": ([("if (t < groups)", "if (t <= groups)")],
                                        "wrote a whole group of 16 pixels where only"),
    # blind audit AI (was 'thread 122 (t == n / 16) wrote a whole group of 16 pixels where only 9
    # are left ... Hint: ... (t < groups, not <=, ...)', a comparison the kernel has right): the
    # groups counted rounded up, as for a grid's size
    "groups_rounded_up": ([("int groups = n / 16;", "int groups = (n + 15) / 16;")],
                          "with n = 1952, whole groups alone, no thread wrote past it: the uint4 "
                          "path was taken by the threads t < (n + 15) / 16 = 123"),
    "every_thread_takes_a_whole_group": ([("if (t < groups)", "if (t < groups + 8)")],
                                         "threads after the last whole group wrote past the end"),
    "one_uint4_stored": ([(STORES, "")], "only the first 16 of the 48 result bytes"),
    # blind audit TYB-sepia_x16-1: byte_of's word w[k / 3], a word taken as one pixel's 3 bytes
    # (was 'in every group of 48 elements of out, only the first 3 are right ... Hint: ... check
    # the indices of the loads that feed them', byte_of not named)
    "byte_of_word_k_over_3": ([("return (w[k >> 2] >>", "return (w[k / 3] >>")],
                              "byte_of took byte k from word w[k / 3], not w[k >> 2]: a 32-bit "
                              "word holds 4 bytes, not a pixel's 3, so pixel 1's red, byte 3 of "
                              "its group, was read from w[1] where it lies in w[0]"),
    # blind audit TJB-sepia_x16-1: byte_of without its & 0xFFu (was '...: set_byte ORed each byte
    # into res[] that held junk ...', res[] being zeroed)
    "byte_of_unmasked": ([("return (w[k >> 2] >> (8 * (k & 3))) & 0xFFu;",
                           "return w[k >> 2] >> (8 * (k & 3));")],
                         "byte_of returned the word shifted down without its & 0xFFu mask"),
    "bytes_read_in_reverse": ([("return (w[k >> 2] >> (8 * (k & 3))) & 0xFFu;",
                                "return (w[k >> 2] >> (24 - 8 * (k & 3))) & 0xFFu;")],
                              "reads the 4 bytes of each 32-bit word in reverse order"),
    "bytes_stored_in_reverse": ([("w[k >> 2] |= value << (8 * (k & 3));",
                                  "w[k >> 2] |= value << (24 - 8 * (k & 3));")],
                                "stores the 4 bytes of each 32-bit word in reverse order"),
    "group_t_at_uint4_t": ([("reinterpret_cast<const uint4 *>(rgb) + 3 * (size_t)t",
                             "reinterpret_cast<const uint4 *>(rgb) + (size_t)t")],
                           "from uint4 number t instead of 3t"),
    "stored_at_uint4_t": ([("reinterpret_cast<uint4 *>(out) + 3 * (size_t)t",
                            "reinterpret_cast<uint4 *>(out) + (size_t)t")],
                          "stored at uint4 number t, not 3t"),
    "byte_of_shifts_bits": ([("(w[k >> 2] >> (8 * (k & 3)))", "(w[k >> 2] >> (k & 3))")],
                            "byte_of shifts by k & 3 bits"),
    # blind audit TZB-sepia_x16-1: byte_of shifts left (was '5856 of 5856 values are wrong ... Hint: pixel i's red, green and blue are at 3*i, ...')
    "byte_of_shifts_left": ([("return (w[k >> 2] >> (8", "return (w[k >> 2] << (8")], "byte_of shifts the word left (<<) where it must shift right (>>): bytes 1 to 3 of each word read as 0 (their bits moved up, out of the & 0xFFu mask), only byte 0 kept, so the first group's pixel 0 was read as (r, g, b) = (109, 0, 0), not (109, 200, 20) (n = 1961 pixels, block = (256, 1, 1), grid "
                            "= (1, 1)). Hint: shift right, to bring byte k down to the lowest 8 bits before the mask"),
    # blind audit TPB-sepia_x16-1: byte_of's shift 8 * (k >> 2) (was 'the kernel crashed: a shift
    # by 32 ... Hint: a thread read or wrote outside the image'); then as a GPU runs it (shr: 0)
    "byte_of_shifts_by_the_word_index": ([(SHIFT, SHIFT.replace("& 3", ">> 2"))], "byte_of shifts "
                                         "by 8 * (k >> 2), 8 bits per word of the byte's word index"),
    "byte_of_shifts_by_the_word_index_as_on_a_gpu": ([(SHIFT, "((k >> 2) < 4 ? w[k >> 2] >> (8 * (k >> 2)) : 0u)")],
                                                     "on a GPU a shift by 32 or more gives 0"),
    # blind audit TIB-sepia_x16-1 (was '5765 of 5856 values are wrong ... Hint: pixel i's red,
    # green and blue are at 3*i, ...', the sepia recipe, set_byte's shift not named)
    "set_byte_shifts_bits": ([("w[k >> 2] |= value << (8 * (k & 3));", "w[k >> 2] |= value << (k & 3);")],
                             "set_byte shifts by k & 3 bits, not 8 * (k & 3)"),
    "set_byte_assigns": ([("w[k >> 2] |= value", "w[k >> 2] = value")],  # blind audit TRB-sepia_x16-1: the hint
                         "set_byte assigns the word (=) where it ORs the byte in (|=), so each byte wipes those before it (n = 1961 pixels, block = (256, 1, 1), grid = (1, 1)). Hint: in set_byte, OR the byte into its word: w[k >> 2] |= value << (8 * (k & 3));"),
    "red_and_blue_stored_swapped": ([("set_byte(res, 3 * p,     ", "set_byte(res, 3 * p + 2, "),
                                     ("set_byte(res, 3 * p + 2, sepia_channel(r, g, bl, 0.272f", "set_byte(res, 3 * p,     sepia_channel(r, g, bl, 0.272f")], "Hint: channels mixed up"),
    # blind audit TSB-sepia_x16-1 (was 'reads the input bytes as RBG', hint in the tail's 3*i terms)
    "green_and_blue_read_swapped": ([("g = byte_of(w, 3 * p + 1), bl = byte_of(w, 3 * p + 2)", "g = byte_of(w, 3 * p + 2), bl = byte_of(w, 3 * p + 1)")], "in the 16-pixel loop, g and bl were read from each other's bytes, g = byte_of(w, 3 * p + 2), bl = byte_of(w, 3 * p + 1): the groups' pixel 0 came out"),
    # the pointer moved by bytes (48t) or pixels (16t) counted as uint4: past rgb's spare bytes
    "group_t_at_uint4_48t": ([("reinterpret_cast<const uint4 *>(rgb) + 3 * (size_t)t",
                               "reinterpret_cast<const uint4 *>(rgb) + 48 * (size_t)t")],
                             "(uint4 *)p + k moves k uint4 of 16 bytes"),
    "stored_at_uint4_16t": ([("reinterpret_cast<uint4 *>(out) + 3 * (size_t)t",
                              "reinterpret_cast<uint4 *>(out) + 16 * (size_t)t")],
                            "(uint4 *)p + k moves k uint4 of 16 bytes"),
    "res_not_zeroed": ([("unsigned int res[12] = {0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, "
                         "0u};", "unsigned int res[12];")],
                       "set_byte ORed each byte into res[] that held junk"),
    "group_t_at_byte_3t": ([("reinterpret_cast<const uint4 *>(rgb) + 3 * (size_t)t",
                             "reinterpret_cast<const uint4 *>(rgb + 3 * (size_t)t)")],
                           # (the model's verdict, or the misaligned load's, as g++ compiles it)
                           "(const uint4 *)(rgb + 3 * t) adds 3t bytes, then casts"),
    # the store's pointer moved by 3t bytes, then cast: misaligned, which the simulator's CPU
    # refuses as a GPU does (its 16-byte store needs a multiple of 16)
    "stored_at_byte_3t": ([("reinterpret_cast<uint4 *>(out) + 3 * (size_t)t",
                            "reinterpret_cast<uint4 *>(out + 3 * (size_t)t)")],
                          "(uint4 *)(out + 3 * t) adds 3t bytes, then casts; cast first"),
    "group_read_as_planar": ([("byte_of(w, 3 * p), g = byte_of(w, 3 * p + 1), bl = "
                               "byte_of(w, 3 * p + 2)",
                               "byte_of(w, p), g = byte_of(w, p + 16), bl = byte_of(w, p + 32)")],
                             "pixel p of a group was read from its bytes p, p + 16 and p + 32"),
    # audit 2: bytes read as words, w[3 * p] (w holds 12 words)
    "bytes_read_as_words": ([("byte_of(w, 3 * p), g = byte_of(w, 3 * p + 1), bl = "
                              "byte_of(w, 3 * p + 2)", "w[3 * p], g = w[3 * p + 1], bl = w[3 * p + 2]")],
                            "Hint: w holds 12 words, not 48 bytes: read byte k with byte_of(w, k)"),
    # audit 2 (near misses, helpers.exercises.near): 12 pixels of 16 (the 12 words); dst[1]
    # stores res[0..3] again
    # blind audit Q24 (was 'in every group of 48 elements of out, only the first 36 are right
    # ... Hint: a loop or a guard stops short: ...', the bound not named)
    "twelve_pixels_a_group": ([("for (int p = 0; p < 16; p++) {", "for (int p = 0; p < 12; p++) {")],
                              "only pixels 0 to 11 of each group were converted, the others are 0: "
                              "the pixel loop ran to 12, the number of words in w[] and res[]"),
    # blind audit AJ (was 'only pixels 0 to 5 of each group were converted ... Hint: for (int
    # p = 0; p < 16; p++) ...', a loop over pixels the kernel's body does not have): the loop
    # over byte indices k += 3 bounded by the pixel count, k < 16
    "byte_loop_to_16": ([("for (int p = 0; p < 16; p++) {", "for (int k = 0; k < 16; k += 3) {"),
                         ("3 * p + 1", "k + 1"), ("3 * p + 2", "k + 2"), ("3 * p", "k")],
                        "only pixels 0 to 5 of each group were converted, the others are 0: a "
                        "loop over the pixels' red bytes k = 0, 3, 6, ... stopped at 16, the "
                        "number of pixels, where a group has 48 bytes"),
    "eight_pixels_a_group": ([("for (int p = 0; p < 16; p++) {", "for (int p = 0; p < 8; p++) {")],
                             "only pixels 0 to 7 of each group were converted, the others are 0"),
    "second_store_repeats_the_first": ([("dst[1] = make_uint4(res[4], res[5], res[6], res[7]);",
                                         "dst[1] = make_uint4(res[0], res[1], res[2], res[3]);")],
                                       "elements 16 to 31 hold the right values of elements 0 to 15"),
    # audit 3 (the group's models, helpers.exercises.sepia_x16._group): the loads, the words,
    # the bytes' offsets and the pixel loop, one thing wrong
    "loads_from_uint4_4t": ([("reinterpret_cast<const uint4 *>(rgb) + 3 * (size_t)t",
                              "reinterpret_cast<const uint4 *>(rgb) + 4 * (size_t)t")],
                            "thread t loaded its three uint4 from number 4t on"),
    "a_loaded_from_src_1": ([("uint4 a = src[0]", "uint4 a = src[1]")],
                            "the group's uint4 a, b, c were loaded from src[1], src[1], src[2]"),
    "word_b_x_twice": ([("b.x, b.y, b.z", "b.x, b.x, b.z")], "w[5] holds b.x where it should "
                       "hold b.y"),
    "pixel_loop_from_1": ([("for (int p = 0; p < 16; p++) {", "for (int p = 1; p < 16; p++) {")],
                          "only pixels 1 to 15 of each group were converted"),
    "blue_read_one_byte_on": ([("bl = byte_of(w, 3 * p + 2)", "bl = byte_of(w, 3 * p + 3)")],
                              "pixel p's blue was read from byte 3p + 3 of its group"),
    "green_stored_at_3p": ([("set_byte(res, 3 * p + 1, ", "set_byte(res, 3 * p, ")],
                           "pixel p's green result was stored at byte 3p of its group"),
    # audit 3b: src offset twice; the results set_byte'd into w; w[] filled component-major
    "src_indexed_at_3t": ([("uint4 a = src[0], b = src[1], c = src[2];",
                            "uint4 a = src[3 * t], b = src[3 * t + 1], c = src[3 * t + 2];")],
                          "src[3 * t] adds the 3t again"),
    "results_into_w": ([("unsigned int res[12] = {0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, "
                         "0u};\n", ""), ("set_byte(res,", "set_byte(w,")]
                       + [(f"res[{k}]", f"w[{k}]") for k in range(12)],
                       "set_byte put the results into w[], which still holds the loaded pixels"),
    "w_by_component": ([("{a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w}",
                         "{a.x, b.x, c.x, a.y, b.y, c.y, a.z, b.z, c.z, a.w, b.w, c.w}")],
                       "w[] holds the loaded words component by component"),
    # blind audit F35, F36: w[] from each uint4 high to low (was '5785 of 5856 values are
    # wrong'); the stores' words res[q] to res[q + 3] (was 'only the first 16 are right ...
    # check the indices of the loads')
    # blind audit AK (was 'in every group of 48 elements of out, only the first 15 are right ...
    # check the indices of the loads that feed them', the loads being right): b and c swapped in w
    "w_b_and_c_swapped": ([("{a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w}",
                            "{a.x, a.y, a.z, a.w, c.x, c.y, c.z, c.w, b.x, b.y, b.z, b.w}")],
                          "w[4] to w[7] hold c, the group's bytes 32 to 47, and w[8] to w[11] "
                          "hold b, its bytes 16 to 31: b and c are swapped"),
    # blind audit AMA-sepia_x16-stores_swapped (was 'only the first 16 are right ... check the
    # indices of the loads that feed them', the loads being right): dst[1] and dst[2] swapped
    "stores_1_and_2_swapped": ([(STORES, STORES.replace("dst[1]", "dst[#]").replace("dst[2]", "dst[1]")
                                 .replace("dst[#]", "dst[2]"))],
                               "the three uint4 of res[] were stored out of order: dst[1] holds "
                               "res[8] to res[11] and dst[2] holds res[4] to res[7]"),
    # blind audit AMA-sepia_x16-load_typo_src1 (was 'only the first 30 are right ... check the
    # indices of the loads that feed them'): c loaded from src[1], b's uint4 again
    "c_loaded_from_src_1": ([("c = src[2];", "c = src[1];")],
                            "the group's uint4 a, b, c were loaded from src[0], src[1], src[1]: "
                            "c holds the group's bytes 16 to 31, b's, and the group's bytes 32 "
                            "to 47 (src[2]) were never loaded"),
    "w_high_to_low": ([("{a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w}",
                        "{a.w, a.z, a.y, a.x, b.w, b.z, b.y, b.x, c.w, c.z, c.y, c.x}")],
                      "w[] holds each uint4's components high to low"),
    # blind audit AC (was '5792 of 5856 values are wrong ... which loaded rgb[0], rgb[16] and
    # rgb[32] ... Hint: pixel i's red, green and blue are at 3*i'): each uint4 stored high to low
    "stores_high_to_low": ([("make_uint4(res[0], res[1], res[2], res[3])",
                             "make_uint4(res[3], res[2], res[1], res[0])"),
                            ("make_uint4(res[4], res[5], res[6], res[7])",
                             "make_uint4(res[7], res[6], res[5], res[4])"),
                            ("make_uint4(res[8], res[9], res[10], res[11])",
                             "make_uint4(res[11], res[10], res[9], res[8])")],
                           "each stored uint4 holds its 4 words of res[] in reverse order"),
    "stores_take_res_q": ([("        dst[0] = make_uint4(res[0], res[1], res[2], res[3]);\n"
                            "        dst[1] = make_uint4(res[4], res[5], res[6], res[7]);\n"
                            "        dst[2] = make_uint4(res[8], res[9], res[10], res[11]);\n",
                            "        for (int q = 0; q < 3; q++)\n            dst[q] = "
                            "make_uint4(res[q], res[q + 1], res[q + 2], res[q + 3]);\n")],
                          "uint4 q of out holds res[q] to res[q + 3], where it should hold "
                          "res[4q]"),
    # blind audit K12: the group's bytes read into char variables, so 128 to 255 became -128 to
    # -1 (was 'the kernel crashed: a float-to-integer conversion ... Hint: a thread read or wrote
    # outside the image ...'): on the simulator the error's fields (a sum below 0, converted to
    # unsigned int) name it; on a GPU (the conversion saturates to 0) the groups' values, as the
    # second variant gives them on the simulator too
    # blind audit TWB-sepia_x16-1 (was 'the last 9 pixels ... were never written'): the tail's
    # pixels counted from the tail's start, sepia_pixel(rgb, out, i - 16 * groups)
    "tail_from_its_own_start": ([("out, i);", "out, i - 16 * groups);")], "sepia_pixel(rgb, out, "
                                "i) with i the pixel's number in the image, 16 * groups to n - 1"),
    # blind audit TXB-sepia_x16-1: the tail's loop from its second pixel, i = 16 * groups + 1
    # (was '3 of 5883 bytes of out were never written (the first in pixel 1952, of thread 122)
    # ... Hint: thread t must convert pixels 16t to 16t + 15: load their 48 bytes as the three
    # uint4 ...', the groups the learner had right)
    "tail_loop_from_16_groups_plus_1": ([("int i = 16 * groups;", "int i = 16 * groups + 1;")],
                                        "pixel 1952, the tail's first, was never written, "
                                        "while the tail's other 8 were (n = 1961, groups = n / 16 "
                                        "= 122, so the tail is pixels 16 * groups = 1952 to "
                                        "1960): the tail's loop starts 1 past 16 * groups"),
    # blind audit ABA-sepia_x16-2 (was 'the red output is 1.000 r + 0.000 g + -0.000 b ... Hint:
    # each output channel comes from the input's r, g and b ...', the sums already right): the
    # stores take the loaded words w[], not the results res[]
    "stores_take_w": ([(STORES, STORES.replace("res[", "w[")),
                       ("(res[0], res[1], res[2], res[3])", "(w[0], w[1], w[2], w[3])")],
                      "the whole groups' pixels came out unchanged, each equal to its input"),
    # blind audit AL (was 'the green bytes hold the red results ...: the green byte was stored
    # from the red sum (r2 where g2 belongs) ...', the sepia exercise's words): the 16-pixel
    # loop's green line copied from the red one, its weights unchanged; the tail right
    "green_with_the_red_weights": ([("3 * p + 1, sepia_channel(r, g, bl, 0.349f, 0.686f, 0.168f)",
                                     "3 * p + 1, sepia_channel(r, g, bl, 0.393f, 0.769f, 0.189f)")],
                                   "in the 16-pixel loop the green bytes hold the red results, "
                                   "the tail's pixels right"),
    "channels_read_as_char": ([(READ_AS_FLOAT, READ_AS_CHAR)],
                              "bytes of 128 and more became negative"),
    "channels_read_as_char_saturated": ([(READ_AS_FLOAT, READ_AS_CHAR), (CHANNEL_SUM, SATURATED)],
                                        "bytes of 128 and more became negative: the channels "
                                        "were read into a signed char"),
    # blind audit AE (was '5856 of 5883 bytes of out were never written ... Hint: thread t must
    # convert pixels 16t to 16t + 15 ...', the whole task again): the store pointer copied from
    # the load's line, cast from rgb, so the groups' results went over the input
    "stores_into_rgb": ([(DST, "        uint4 *dst = (uint4 *)rgb + 3 * (size_t)t;\n")],
                        "the results of the 122 whole groups of 16 pixels were stored into rgb, "
                        "the input, not into out"),
    # blind audit AU (was 'the kernel crashed: a float-to-integer conversion ... Keep the value in
    # the type's range first ... Hint: a thread read or wrote outside the image', neither the
    # mistake): the 48 bytes loaded as float4, each float converted to unsigned int by its value
    "words_converted_from_float4": ([(LOADS, FLOAT4_LOADS)],
                                    "the image's bytes were loaded as floats and converted by "
                                    "value: (unsigned int) of the float 1.17878e+31 at line "),
}
