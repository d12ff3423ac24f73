"""The scale_vector exercise's variants for tests/exercises/test_scale_vector.py: the solution
(KERNEL) and a right grid-stride kernel (GRID_STRIDE), the known mistakes (WRONG: name, source,
the words the NOT YET line must contain; SIMULATOR_ONLY, those named on the simulator alone), a
wild write (WILD) and a kernel that never ends (ENDLESS)."""

from kernel_sources import solution, variant


KERNEL = solution("scale_vector.cu")
GRID_STRIDE = """
__global__ void scale_vector(const float *x, float *y, float alpha, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = alpha * x[i];
}
"""

# (name, source, words that the NOT YET line must contain)
WRONG = [
    # blind audit TTB-scale_vector-1 (was 'every element of y is 0.16 times the right value: a
    # factor is off ... Hint: ... an int divided by an int drops the fraction ..., and ^ is
    # exclusive or', the division by alpha not named)
    ("divided_by_alpha", variant(KERNEL, ("y[i] = alpha * x[i];", "y[i] = x[i] / alpha;")),
     ["every element of y is x[i] / alpha, not alpha * x[i]: y was divided by alpha = -2.5",
      "Hint: scaling by alpha multiplies: y[i] = alpha * x[i]"]),
    # blind audit AI (was 'every element of y is -0.8 times the right value: a factor is off ...
    # Hint: ... an int divided by an int drops the fraction'): the example's 2.0f in place of alpha
    ("a_number_in_place_of_alpha", variant(KERNEL, ("y[i] = alpha * x[i];", "y[i] = 2.0f * x[i];")),
     ["y = 2 * x, but alpha is -2.5 here: alpha is not used", "multiplies by a number of its own",
      "Hint: multiply by the parameter: y[i] = alpha * x[i]"]),
    # blind audit TOB-scale_vector-1 (was 'only the first element of each block was written:
    # threadIdx.x is missing', though threadIdx.x is there, multiplied in)
    ("thread_s_place_multiplied_in",
     variant(KERNEL, ("int i = blockIdx.x * blockDim.x + threadIdx.x;",
                      "int i = blockIdx.x * blockDim.x * threadIdx.x;")),
     ["thread t of block b stored y[b * blockDim.x * t]",
      "i = blockIdx.x * blockDim.x * threadIdx.x multiplies the thread's place in",
      "Hint: add the thread's place to the block's first element"]),
    # blind audit TSB-scale_vector-1 (was '750 of 1000 elements were never written (the first is
    # y[1]) ... Hint: every i < n needs a thread: ...', the multiplied threadIdx.x not named)
    ("thread_s_place_times_the_grid",
     variant(KERNEL, ("int i = blockIdx.x * blockDim.x + threadIdx.x;",
                      "int i = blockIdx.x * blockDim.x + threadIdx.x * gridDim.x;")),
     ["only y[0], y[4], y[8], y[12], ... were written", "thread t of block b wrote "
      "y[b * blockDim.x + t * gridDim.x]", "threadIdx.x is multiplied by gridDim.x = 4",
      "Hint: add the thread's place alone: i = blockIdx.x * blockDim.x + threadIdx.x"]),
    # blind audit TLB-scale_vector-1 (was '744 of 1000 elements are wrong ...: y[256] was stored by
    # thread (0, 0, 0) of block (1, 0, 0) ..., which loaded x[0]', x's index not named)
    ("x_at_the_thread_s_place", variant(KERNEL, ("y[i] = alpha * x[i];", "y[i] = alpha * x[threadIdx.x];")),
     ["x was read at threadIdx.x, where i belongs: every block read x[0] to x[255]",
      "read x at the element's own index, x[i]: y[i] = alpha * x[i]"]),
    ("no_bounds_guard",
     variant(KERNEL, ("    if (i < n) {\n        y[i] = alpha * x[i];\n    }", "    y[i] = alpha * x[i];")),
     ["every thread past the end wrote", "a bounds guard must test the global index against n"]),
    # blind audit AH (was 'no guard compared the thread's global i with n ... Hint: ... such as
    # a test of threadIdx.x alone ...', silent on its bound): the guard counts bytes, not elements
    ("guard_in_bytes", variant(KERNEL, ("if (i < n)", "if (i < n * sizeof(float))")),
     ["every thread past the end wrote too (y[1000] to y[1023]): the guard if (i < n * "
      "sizeof(float)) at line ", "compares i with n * sizeof(float) = 4000", "Hint: n already "
      "counts elements, not bytes: if (i < n)"]),
    # blind audit TEB-scale_vector-1 (was 'no guard compared the thread's global i with n', though
    # if (i < n) was there: without braces it covered only the load, and the store ran for all)
    ("guard_without_braces_covers_only_the_load",
     variant(KERNEL, ("    if (i < n) {\n        y[i] = alpha * x[i];\n    }",
                      "    float v = 0.0f;\n    if (i < n)\n        v = x[i];\n        y[i] = alpha * v;")),
     ["the threads past the end stored into y (y[1000] to y[1023]) but none of them read x",
      "covers only the one statement after it", "Hint: put the store inside the guard too, with "
      "braces: if (i < n) { y[i] = alpha * x[i]; }"]),
    # blind audit AC (was 'the guard if (i < n) covers the load but not the store; an if
    # without braces covers only ...', though the store is inside the if): an else branch stores
    # 0 for the threads past n, past y's end
    ("else_stores_for_the_spare_threads",
     variant(KERNEL, ("    if (i < n) {\n        y[i] = alpha * x[i];\n    }",
                      "    if (i < n)\n        y[i] = alpha * x[i];\n    else\n        y[i] = 0.0f;")),
     ["the threads past the end stored into y (y[1000] to y[1023]) but none of them read x: the "
      "store y[i] = 0.0f; at line ", "only the threads past n ran it",
      "Hint: the threads without an element must do nothing"]),
    # blind audit TGB-scale_vector-1 (was '... the guard if (i < n) covers the load but not the
    # store; an if without braces covers only the one statement after it ...', an if the code
    # does not have: the conditional expression guards the read, the store runs for every thread)
    ("conditional_value_unguarded_store",
     variant(KERNEL, ("    if (i < n) {\n        y[i] = alpha * x[i];\n    }",
                      "    y[i] = i < n ? alpha * x[i] : 0.0f;")),
     ["the threads past the end stored into y (y[1000] to y[1023]) but none of them read x: the "
      "store y[i] = i < n ? alpha * x[i] : 0.0f; at line ", " runs for every thread, and its "
      "conditional expression (?:) picks the value alone",
      "Hint: guard the store itself, not its value: if (i < n) y[i] = alpha * x[i];"]),
    # blind audit S2-10 (was 'elements past n were written (y[n] and beyond) ... Hint: add a
    # bounds guard, if (i < n), ...', though there is a guard, on threadIdx.x)
    ("guard_on_the_place_in_the_block",
     variant(KERNEL, ("if (i < n) {", "if (threadIdx.x < blockDim.x) {")),
     ["no guard compared the thread's global i with n", "if (i < n)",
      "a test of threadIdx.x alone, threadIdx.x < blockDim.x"]),
    # blind audit AL (was 'PASS: y = alpha * x for every size tried ...'): x[i] loaded into a
    # local above the bounds guard, so the threads past n read past the end of x (in the first
    # case, which names it, no further than x's 64 spare elements: on a GPU too)
    ("load_above_the_guard",
     variant(KERNEL, ("    if (i < n) {\n        y[i] = alpha * x[i];",
                      "    float v = x[i];\n    if (i < n) {\n        y[i] = alpha * v;")),
     ["the kernel reads x[i] (line ", ") before its bounds guard, if (i < n) (line ",
      "the threads past n", "read past the end of x, as far as x[1023] (x holds 1000 elements",
      "Hint: the guard must come before any access to memory: read x[i] inside the if (i < n)"]),
    # blind audit TB-scale_vector-1 (named, but its hint's one example was a threadIdx.x guard:
    # 'a test of threadIdx.x alone, such as threadIdx.x < blockDim.x, lets every thread through')
    ("guard_against_the_threads_launched",
     variant(KERNEL, ("if (i < n) {", "if (i < gridDim.x * blockDim.x) {")),
     ["no guard compared the thread's global i with n", "if (i < n)",
      "or of i against the threads launched, i < gridDim.x * blockDim.x"]),
    # blind audit H19 (was PASS): an index held in a float is exact only up to 2^24
    ("index_in_a_float",
     variant(KERNEL, ("int i = blockIdx.x", "float i = blockIdx.x"),
             ("y[i] = alpha * x[i];", "y[(int)i] = alpha * x[(int)i];")),
     ["all past 2^24", "the index went through a float", "keep the index an int"]),
    # blind audit Y20 (was 'the kernel crashed: ... a read of x ..., 131072 bytes before the
    # start ... Hint: add a bounds guard, if (i < n), ...', though the guard was there)
    ("index_in_a_short",
     variant(KERNEL, ("int i = blockIdx.x", "short i = blockIdx.x")),
     ["thread 0 of block 128, whose i is 32768, reached element -32768", "16-bit short",
      "wrapped negative", "Hint: keep the index an int: int i = blockIdx.x"]),
    ("index_in_an_unsigned_short",
     variant(KERNEL, ("int i = blockIdx.x", "unsigned short i = blockIdx.x")),
     ["only y[0] to y[65535] were written", "16-bit unsigned short", "wraps to 0 past 65535",
      "Hint: keep the index an int: int i = blockIdx.x"]),
    # blind audit K10 (was 'elements past n were written (y[n] and beyond) ... Hint: add a bounds
    # guard, if (i < n), ...', the guard the learner thought they had written)
    ("chained_comparison_guard",
     variant(KERNEL, ("if (i < n) {", "if (0 <= i < n) {")),
     ["condition at line ", "chains two comparisons", "is (0 <= i) < n", "true for every thread",
      "Hint: compare i with n alone: if (i < n)", "0 <= i && i < n"]),
    # blind audit O10 (was 'elements past n were written (y[n] and beyond) ... Hint: add a bounds
    # guard, if (i < n), ...', though y[n] itself was not written and a guard was there)
    ("guard_not_equal",
     variant(KERNEL, ("i < n", "i != n")),
     ["wrote y[1001] to y[1023], all but y[n]", "as i != n does",
      "Hint: i != n lets every thread past n through: if (i < n)"]),
    # blind audit AN (was '... the guard stopped only the thread whose i is exactly n, as i != n
    # does', a test the learner never wrote): n - i > 0 with i unsigned, which wraps past n
    ("unsigned_difference_guard",
     variant(KERNEL, ("int i = blockIdx.x", "unsigned int i = blockIdx.x"),
             ("if (i < n)", "if (n - i > 0)")),
     ["wrote y[1001] to y[1023], all but y[n]", "the guard if (n - i > 0) at line ",
      "unsigned int i", "wraps around to a huge positive number",
      "Hint: compare i with n itself, not their difference: if (i < n)"]),
    # blind audit Q10 (was 'elements past n were written (y[n] and beyond) ... Hint: add a bounds
    # guard, if (i < n), ...', though the guard was there, testing the block's first element)
    ("guard_on_the_block_s_start",
     variant(KERNEL, ("if (i < n) {", "if (blockIdx.x * blockDim.x < n) {")),
     ["wrote y[1000] to y[1023], as far as the block's end", "the guard tests the block's first "
      "element", "Hint: test the thread's element: if (i < n)"]),
    ("guard_off_by_one",
     variant(KERNEL, ("i < n", "i <= n")),
     ["y[n] was written", "off by one", "not i <= n"]),
    # blind audit AJ (was 'y[n] was written, one element past the end: the bounds guard is off
    # by one ... not i <= n', a guard the learner never wrote): if (i = n), = where < compares
    ("guard_assigns_n",
     variant(KERNEL, ("if (i < n)", "if (i = n)")),
     [", i = n, assigns where it should compare: it stores n in i",
      "Hint: compare, do not assign, which leaves i as it is: i < n for a bound, i == n for equal"]),
    ("stores_into_the_next",
     variant(KERNEL, ("y[i] = alpha * x[i];", "y[i + 1] = alpha * x[i];")),
     ["one too far", "the guard is right", "y[i] = alpha * x[i]"]),
    ("reads_the_next",
     variant(KERNEL, ("alpha * x[i]", "alpha * x[i + 1]")),
     ["y[i] holds alpha * x[i + 1]", "shifted by one"]),
    ("reads_the_one_before",
     variant(KERNEL, ("alpha * x[i]", "alpha * x[i - 1]")),
     ["y[i] holds alpha * x[i - 1]", "shifted by one"]),
    ("only_block_0",
     variant(KERNEL, ("blockIdx.x * blockDim.x + threadIdx.x", "threadIdx.x")),
     ["only the first block's elements", "blockIdx.x * blockDim.x"]),
    ("guard_against_blockDim",
     variant(KERNEL, ("i < n", "i < blockDim.x")),
     ["only the first block's elements (y[0] to y[255]) were written",
      "i = threadIdx.x alone", "a guard i < blockDim.x", "if (i < n)"]),
    # blind audit F29: the store at the block-local index (was 'only the first block's elements
    # ... i = threadIdx.x alone ...', its hint 'no guard')
    ("stored_at_thread_index",
     variant(KERNEL, ("y[i] = alpha * x[i];", "y[threadIdx.x] = alpha * x[i];")),
     ["every block stored at y[threadIdx.x]", "the index i is right", "store at the global index, y[i]"]),
    # blind audit F30 (was 'two threads wrote y[8] ...: every thread did the whole loop, or the
    # threads' elements overlap')
    ("block_stride_loop",
     variant(KERNEL, ("    if (i < n) {\n        y[i] = alpha * x[i];\n    }",
                      "    while (i < n) {\n        y[i] = alpha * x[i];\n        i += blockDim.x;\n    }")),
     ["thread 0 of blocks 0 and 1 both wrote y[8]", "steps by blockDim.x", "blockDim.x * gridDim.x"]),
    # blind audit AB (was 'no guard compared the thread's global i with n', though the guard
    # if (i >= n) return; was there): the guard after the store
    ("guard_after_the_store",
     variant(KERNEL, ("    if (i < n) {\n        y[i] = alpha * x[i];\n    }",
                      "    y[i] = alpha * x[i];\n    if (i >= n)\n        return;")),
     ["the guard if (i >= n) return; at line ", "comes after the store y[i] = alpha * x[i]; at line ",
      "Hint: test i before the store: if (i >= n) return; first, then y[i] = alpha * x[i];"]),
    ("guard_inverted",
     variant(KERNEL, ("    if (i < n) {\n        y[i] = alpha * x[i];\n    }",
                      "    if (i < n)\n        return;\n    y[i] = alpha * x[i];")),
     ["only the threads past the end wrote", "the guard is inverted", "i >= n"]),
    ("index_takes_gridDim",
     variant(KERNEL, ("blockIdx.x * blockDim.x + threadIdx.x", "blockIdx.x * gridDim.x + threadIdx.x")),
     ["blockIdx.x * gridDim.x + threadIdx.x takes the number of blocks", "blockIdx.x * blockDim.x"]),
    ("index_adds_the_block",
     variant(KERNEL, ("blockIdx.x * blockDim.x + threadIdx.x", "blockIdx.x + threadIdx.x")),
     ["the block's start is blockIdx.x times 1, not times blockDim.x", "blockIdx.x * blockDim.x"]),
    ("writes_nothing",
     variant(KERNEL, ("        y[i] = alpha * x[i];\n", "")),
     ["nothing was written"]),
    ("guard_of_sizeof_a_pointer",
     variant(KERNEL, ("i < n", "i < sizeof(x) / sizeof(x[0])")),
     ["only y[0] and y[1] were written", "x is a pointer", "the parameter n, if (i < n)"]),
    ("alpha_forgotten",
     variant(KERNEL, ("alpha * x[i]", "x[i]")),
     ["alpha is not applied", "y[i] = alpha * x[i]"]),
    ("alpha_added",
     variant(KERNEL, ("alpha * x[i]", "alpha + x[i]")),
     ["values wrong everywhere", "check alpha"]),
    ("index_wrong_stride",
     variant(KERNEL, ("blockIdx.x * blockDim.x + threadIdx.x", "blockIdx.x * 128 + threadIdx.x")),
     ["never written", "every i < n needs a thread"]),
    ("y_read_for_x",
     variant(KERNEL, ("alpha * x[i]", "alpha * y[i]")),
     ["y[i] holds alpha * y[i]", "y[i] = alpha * x[i]"]),
    # blind audit Q19 (was '232 of 1000 elements were never written (the first is y[768]) ...
    # Hint: every i < n needs a thread: i = blockIdx.x * blockDim.x + threadIdx.x')
    ("guard_on_whole_blocks",
     variant(KERNEL, ("if (i < n) {", "if (blockIdx.x < n / blockDim.x) {")),
     ["the last, partial block wrote nothing (y[768] to y[999] never written)",
      "blockIdx.x < n / blockDim.x", "Hint: guard each element, not the block: if (i < n)"]),
    # blind audit TWB-scale_vector-1 (was 'the last, partial block wrote nothing ... the guard
    # passes whole blocks alone, as blockIdx.x < n / blockDim.x does', though the guard is i < n:
    # the blocks are counted from 1, and block 0 wrote before y)
    ("blocks_counted_from_1",
     variant(KERNEL, ("int i = blockIdx.x * blockDim.x + threadIdx.x;",
                      "int i = (blockIdx.x - 1) * blockDim.x + threadIdx.x;")),
     ["block 0 wrote y[-256] to y[-1], before y's start, and y[768] to y[999] were never "
      "written", "the index is one block short: (blockIdx.x - 1) counts the blocks from 1",
      "Hint: block 0 starts at element 0: i = blockIdx.x * blockDim.x + threadIdx.x"]),
    ("guard_leaves_out_0",
     variant(KERNEL, ("i < n", "i > 0 && i < n")),
     ["y[0] alone was never written", "if (i < n) alone"]),
    # blind audit U10 (was '1 of 1000 elements were never written (the first is y[999]) ...
    # Hint: every i < n needs a thread: i = blockIdx.x * blockDim.x + threadIdx.x')
    ("guard_stops_one_short",
     variant(KERNEL, ("i < n", "i < n - 1")),
     ["y[n - 1] (y[999]) alone was never written", "the guard stops one short",
      "Hint: the last element is y[n - 1]", "guard with if (i < n)"]),
    # blind audit W10 (was 'values wrong everywhere ... Hint: check alpha: y[i] = alpha * x[i]')
    ("y_multiplied_into",
     variant(KERNEL, ("y[i] = alpha * x[i];", "y[i] *= alpha * x[i];")),
     ["y was multiplied into (y[i] *= alpha * x[i])", "-7 * alpha * x[i]",
      "Hint: y is written, not updated: y[i] = alpha * x[i]"]),
    # blind audit AD (was 'every element of y is 0.8 times the right value: a factor is off
    # ... Hint: ... an int divided by an int drops the fraction ..., and ^ is exclusive or'):
    # alpha kept in an int before the product, its fraction lost
    ("alpha_kept_in_an_int",
     variant(KERNEL, ("        y[i] = alpha * x[i];", "        int a = alpha;\n"
                                                   "        y[i] = a * x[i];")),
     ["every element of y is -2 * x[i], but alpha is -2.5 here: alpha was cut to a whole number",
      "int a = alpha; at line ", "Hint: keep alpha a float"]),
    # blind audit AU (was 'values wrong everywhere ... Hint: check alpha: y[i] = alpha * x[i]'):
    # alpha and x[i] both cut to ints before the product (scaled<int>(alpha, x[i]) in the audit)
    ("alpha_and_x_cut_to_ints",
     variant(KERNEL, ("y[i] = alpha * x[i];", "y[i] = (int)alpha * (int)x[i];")),
     ["every element of y is -2 * x[i] with x[i]'s fraction dropped (y[1] = -4 for x[1] = ",
      "alpha and x[i] were both cut to whole numbers", "y[i] = (int)alpha * (int)x[i]; at line ",
      "Hint: keep alpha and x[i] floats: y[i] = alpha * x[i]"]),
    # x[i] alone kept in an int (was 'values wrong everywhere ... Hint: check alpha')
    ("x_kept_in_an_int",
     variant(KERNEL, ("        y[i] = alpha * x[i];", "        int v = x[i];\n"
                                                   "        y[i] = alpha * v;")),
     ["every element of y is alpha * x[i] with x[i]'s fraction dropped", "x[i] was cut to a whole "
      "number", "int v = x[i]; at line ", "puts it in an int", "Hint: keep x[i] a float"]),
    ("product_cast_to_int",
     variant(KERNEL, ("alpha * x[i]", "(int)(alpha * x[i])")),
     ["y holds whole numbers", "keep the product a float"]),
    # blind audit AO (was 'the kernel crashed: ... a read at ...:12, 1 byte past the end of a
    # 5280-byte allocation ... Hint: add a bounds guard, if (i < n)', which the kernel has):
    # unrolled by two, y[i + blockDim.x] stored too under the guard of i alone
    ("second_element_unguarded",
     variant(KERNEL, ("        y[i] = alpha * x[i];\n", "        y[i] = alpha * x[i];\n"
                                                     "        y[i + blockDim.x] = alpha * "
                                                     "x[i + blockDim.x];\n")),
     ["thread 40 of block 3, whose i = 808 is below n = 1000", "each thread also stores a second "
      "element, y[i + blockDim.x] = alpha * x[i + blockDim.x]", "the guard if (i < n) tests only "
      "i, not i + blockDim.x", "Hint: remove the second store"]),
    # every thread does the whole loop: right values, but for the race check
    ("every_thread_loops",
     variant(KERNEL, ("        y[i] = alpha * x[i];", "        for (int j = 0; j < n; j++)\n"
                                                   "            y[j] = alpha * x[j];")),
     ["two threads wrote y[0]", "every thread did the whole loop", "no loop over all of y"]),
]
SIMULATOR_ONLY = {"index_in_a_short": "its wrapped threads read and write 128 KiB before x and "
                                        "y, which a GPU may leave unnoticed or fault on",
                  "second_element_unguarded": "a read just past x's end, which a GPU may leave "
                                              "unnoticed"}
# A write through a wild pointer (into the lowest pages, which are never mapped: a write far past
# an array could land in some other mapping instead). Only run on the simulator: on a GPU an
# illegal address leaves the context unusable for the rest of the test run.
WILD = variant(KERNEL, ("y[i] = alpha * x[i];",
                        "y[i] = alpha * x[i]; ((volatile float *)4096)[i] = 1.0f;"))
# A kernel that never ends: on the simulator the checker stops it at its time limit. (A GPU
# cannot stop it from Python: there the grading command's process time limit does.)
ENDLESS = variant(KERNEL, ("    if (i < n) {", "    volatile int spin = 1;\n    while (spin) {}\n"
                                             "    if (i < n) {"))
