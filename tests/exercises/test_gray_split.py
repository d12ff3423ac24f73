"""The multi-GPU exercise (notebook 11): the reference solution passes, the notebook's stub and
known-wrong functions fail, each with the hint that names its mistake.

The learner's work is a Python function, exec'ed from source the way a notebook cell defines it.
On the simulator the checker presents two devices; on a GPU machine the mistakes that only show
with several devices are tested where there are several."""

import pytest

from helpers.backend import BACKEND, drv
from helpers.exercises import catalog
from helpers.exercises.function import context_stack
from helpers.exercises.gray_split import check_gray_split
from helpers.exercises.solutions.gray_split import my_gray_split as solution

SEVERAL = BACKEND == "simulator" or drv.Device.count() > 1
several_devices = pytest.mark.skipif(not SEVERAL, reason="needs several devices")


def define(source):
    return catalog.define_function(source, "my_gray_split")


def run_check(fn, capsys):
    verdict = check_gray_split(fn)
    out = capsys.readouterr().out
    assert out.endswith(f"{verdict}\n"), out
    return verdict.passed, out


def test_solution_passes(capsys):
    ok, out = run_check(solution, capsys)
    assert ok and out.startswith("PASS:"), out
    if SEVERAL:
        assert "every device converted its share" in out
    else:
        assert "the split itself could not be checked" in out


def test_notebook_stub_fails(capsys):
    stub = catalog.learner_work(catalog.find("gray_split"), catalog.AS_SHIPPED.parent.parent.parent)
    assert stub is not None, "notebook 11 has no cell defining my_gray_split"
    ok, out = run_check(define(stub), capsys)
    assert not ok and out.startswith("NOT YET:"), out
    assert "none of the images was converted" in out, out


def test_not_a_function(capsys):
    ok, out = run_check(42, capsys)
    assert not ok and "without parentheses" in out


def test_the_notebooks_context_is_current_after_the_check(capsys):
    before = drv.Context.get_current()
    run_check(define(SOLUTION.replace("        with using(contexts[k]):\n            rgb_k",
                                      "        contexts[k].push()\n        if True:\n"
                                      "            rgb_k")), capsys)
    assert drv.Context.get_current() == before


ON_STREAMS = '''
def my_gray_split(images, contexts, kernels):
    from helpers.backend import drv, gpuarray
    from helpers.ch11.multigpu import using

    count, height, width, _ = images.shape
    n = len(contexts)
    grey = np.zeros((count, height, width), np.uint8)
    work = []
    for k in range(n):
        lo, hi = k * count // n, (k + 1) * count // n
        if lo == hi:
            continue
        with using(contexts[k]):
            stream = drv.Stream()
            rgb_k = gpuarray.to_gpu_async(images[lo:hi], stream=stream)
            grey_k = gpuarray.empty((hi - lo, height, width), np.uint8)
            out = drv.pagelocked_empty((hi - lo, height, width), np.uint8)
            rows = (hi - lo) * height
            kernels[k](rgb_k, grey_k, np.int32(width), np.int32(rows), block=(16, 16, 1),
                       grid=((width + 15) // 16, (rows + 15) // 16), stream=stream)
            grey_k.get_async(stream, out)
        work.append((k, lo, hi, stream, out, rgb_k, grey_k))
    for k, lo, hi, stream, out, *_ in work:
        with using(contexts[k]):
            stream.synchronize()
        grey[lo:hi] = out
    return grey
'''


def test_streams_and_queued_copies_pass(capsys):
    """An unusual right solution: each device's copy in, kernel and copy back queued on a stream
    of its own (another block shape), then every stream waited for."""
    ok, out = run_check(define(ON_STREAMS), capsys)
    assert ok and out.startswith("PASS:"), out


# The solution as a notebook cell, and wrong versions of it.
SOLUTION = '''
def my_gray_split(images, contexts, kernels):
    from helpers.backend import drv, gpuarray
    from helpers.ch11.multigpu import using

    count, height, width, _ = images.shape
    n = len(contexts)
    grey = np.zeros((count, height, width), np.uint8)
    queued = []
    for k in range(n):
        lo, hi = k * count // n, (k + 1) * count // n
        if lo == hi:
            continue
        with using(contexts[k]):
            rgb_k = gpuarray.to_gpu(images[lo:hi])
            grey_k = gpuarray.empty((hi - lo, height, width), np.uint8)
            rows = (hi - lo) * height
            kernels[k](rgb_k, grey_k, np.int32(width), np.int32(rows), block=(32, 8, 1),
                       grid=((width + 31) // 32, (rows + 7) // 8))
        queued.append((k, lo, hi, rgb_k, grey_k))
    for k, lo, hi, rgb_k, grey_k in queued:
        with using(contexts[k]):
            grey[lo:hi] = grey_k.get()
    return grey
'''


def wrong(*replacements):
    source = SOLUTION
    for old, new in replacements:
        assert old in source, old
        source = source.replace(old, new)
    return source


def assert_named(replacements, expected, capsys):
    """The solution changed by ``replacements`` (``wrong``): NOT YET, with ``expected`` (a piece
    of the verdict, or several) in what the checker printed."""
    ok, out = run_check(define(wrong(*replacements)), capsys)
    assert not ok and out.startswith("NOT YET:"), out
    for part in (expected,) if isinstance(expected, str) else expected:
        assert part in out, out


SPLIT = "        lo, hi = k * count // n, (k + 1) * count // n\n"
WRONG = {
    # blind audit TIC-gray_split-1 (was "your function raised ValueError at line 26 of your cell
    # (grey[lo:hi] = grey_k.get()): could not broadcast input array from shape (3,37,53,3) into
    # shape (3,37,53) ... Hint: the message says what went wrong on that line. ..."): the grey
    # output allocated like the RGB share, a NumPy habit
    "grey_allocated_like_rgb": (
        [("gpuarray.empty((hi - lo, height, width), np.uint8)", "gpuarray.empty_like(rgb_k)")],
        ("grey_k = gpuarray.empty_like(rgb_k) (line 16 of your cell) gave grey_k the shape of "
         "rgb_k, (", "Hint: allocate the grey share by its own shape and type: grey_k = "
         "gpuarray.empty((hi - lo, height, width), np.uint8)"), False),
    # blind audit TRC-gray_split-1 (was "your function raised ValueError at line 26 of your cell
    # (grey[lo:hi] = grey_k.get()): could not broadcast input array from shape (3,53,37) into
    # shape (3,37,53) ... Hint: the message says what went wrong on that line. ...", the shape
    # the learner wrote): images.shape unpacked as (count, width, height), an image library's order
    "shape_unpacked_width_first": (
        [("count, height, width, _ = images.shape", "count, width, height, _ = images.shape")],
        ("count, width, height, _ = images.shape (line ", "of your cell) unpacks the shape in "
         "the wrong order: images is (count, height, width, 3), rows before columns, so your "
         "width = 37 is the images' height and your height = 53 their width",
         "Hint: unpack in the array's order: count, height, width, _ = images.shape"), False),
    "shape_unpacked_width_first_grey_from_the_shape": (   # as the record's: grey_k.get() raises
        [("count, height, width, _ = images.shape", "count, width, height, _ = images.shape"),
         ("np.zeros((count, height, width), np.uint8)", "np.zeros(images.shape[:3], np.uint8)")],
        ("your function raised ValueError at line ", "count, width, height, _ = images.shape "
         "(line ", "unpacks the shape in the wrong order", "so your width = 37 is the images' "
         "height", "Hint: unpack in the array's order: count, height, width, _ = images.shape"),
        False),
    # blind audit TLC-gray_split-1 (was "your function raised ValueError at line 26 of your cell
    # (grey[lo:hi] = grey_k.get()): could not broadcast input array from shape (3,37,53) into
    # shape (3,53,37) ... Hint: the message says what went wrong on that line. ...", the device
    # output's shape): the host output allocated with width and height swapped
    "host_grey_width_and_height_swapped": ([("np.zeros((count, height, width), np.uint8)",
                                             "np.zeros((count, width, height), np.uint8)")],
        ("grey = np.zeros((count, width, height), np.uint8) (line 8 of your cell) gave grey the "
         "shape (7, 53, 37): width and height swapped",
         "Hint: an image is height rows of width pixels: grey = np.zeros((count, height, width), "
         "np.uint8) (or images.shape[:3])"), False),
    # blind audit TYC-gray_split-1 (was "your function returned an array of shape (7, 37, 53)
    # and dtype float64; expected (7, 37, 53) uint8 ... Hint: one grey image (height, width) of
    # uint8 for each image of the batch"): the host output allocated without its dtype
    "host_grey_without_dtype": (
        [("np.zeros((count, height, width), np.uint8)", "np.zeros(images.shape[:3])")],
        ("grey = np.zeros(images.shape[:3]) (line 8 of your cell) gives no dtype, so grey is "
         "float64, NumPy's default, and your function returned the right grey levels as float64 "
         "where the grey images are uint8", "Hint: give np.zeros the dtype: grey = "
         "np.zeros(images.shape[:3], np.uint8)"), False),
    "context_left_pushed": ([("        with using(contexts[k]):\n            rgb_k",
                              "        contexts[k].push()\n        if True:\n            rgb_k")],
                            "a context it pushed was not popped", False),
    "device_0_pushed_again": ([("    n = len(contexts)\n",
                                "    n = len(contexts)\n    contexts[0].push()\n")],
                              "a context it pushed was not popped", False),
    "remainder_dropped": ([(SPLIT, "        share = count // n\n"
                                   "        lo, hi = k * share, (k + 1) * share\n")],
                          ("image 6 belongs to no device's share, so it was never converted "
                           "(still 0, black): the shares end at (k + 1) * share (line 12 of your "
                           "cell: lo, hi = k * share, (k + 1) * share)",
                           "Hint: multiply first, then divide: hi = (k + 1) * count // n"), True),
    # blind audit TKC-gray_split-1 (was "1 of 7 grey images are wrong (images 6) ... Hint: every
    # image must be converted once, by one device: give device k the images lo = k * count // n
    # to hi = (k + 1) * count // n ..."): the floor taken before the product, image 6 in no share
    "share_end_floored_first": ([(SPLIT, SPLIT.replace("(k + 1) * count // n",
                                                       "(k + 1) * (count // n)"))],
                                ("image 6 belongs to no device's share, so it was never converted "
                                 "(still 0, black): the shares end at (k + 1) * (count // n) (line "
                                 "11 of your cell: lo, hi = k * count // n, (k + 1) * (count // "
                                 "n)), which takes the floor before the product: count // n "
                                 "= 7 // 2 = 3, so device 1's share ends at 6, not at count = 7",
                                 "Hint: multiply first, then divide: hi = (k + 1) * count // n"),
                                True),
    # blind audit TSC-gray_split-1 (was "2 of 7 grey images are wrong (images 2, 6) ... Hint:
    # every image must be converted once, by one device: give device k the images lo = k * count
    # // n to hi = (k + 1) * count // n ..."): hi taken as the share's last image, one early
    "share_ends_one_early": ([(SPLIT, SPLIT.replace("(k + 1) * count // n\n",
                                                    "(k + 1) * count // n - 1\n"))],
                             ("images 2, 6 belong to no device's share, so they were never "
                              "converted (still 0, black): they are the last image of each share",
                              "hi is one past the share's last image"), True),
    "empty_share_launched": ([("        if lo == hi:\n            continue\n", "")],
                             "launched on a grid of no blocks", True),
    "gathered_in_the_wrong_place": ([("grey[lo:hi] = grey_k.get()",
                                      "grey[:hi - lo] = grey_k.get()")],
                                    "of the result holds the grey version of image", True),
    # blind audit TUC-gray_split-1 (was "your function raised ValueError at line 26 of your cell
    # (grey[k] = grey_k.get()): could not broadcast input array from shape (3,37,53) into shape
    # (37,53) ... Hint: the message says what went wrong on that line. ..."): the share stored at
    # the device's number, grey[k], for its images' place, grey[lo:hi] (on one device too)
    "share_stored_at_the_device_s_number": ([("grey[lo:hi] = grey_k.get()",
                                              "grey[k] = grey_k.get()")],
                                            ("line 23 of your cell (grey[k] = grey_k.get())",
                                             "the line stores device 0's share of ",
                                             "at grey[k] = grey[0], one image of shape (37, 53)",
                                             "Hint: store the share at its images' place: "
                                             "grey[lo:hi] = grey_k.get()"), False),
    "uneven_shares": ([(SPLIT, "        lo, hi = (0, count - 1) if k == 0 else (count - 1, count)"
                               "\n        lo, hi = (lo, hi) if k < 2 else (count, count)\n")],
                      "the shares are uneven", True),
    "took_turns": ([("        queued.append((k, lo, hi, rgb_k, grey_k))\n",
                     "        with using(contexts[k]):\n"
                     "            grey[lo:hi] = grey_k.get()\n"),
                    ("    for k, lo, hi, rgb_k, grey_k in queued:\n", "    for _ in ():\n")],
                   "device 0's result was copied back before device 1's kernel was launched: "
                   "the devices took turns", True),
    "synchronized_in_the_loop": ([("                       grid=((width + 31) // 32, "
                                   "(rows + 7) // 8))\n",
                                   "                       grid=((width + 31) // 32, "
                                   "(rows + 7) // 8))\n"
                                   "            drv.Context.synchronize()\n")],
                                 "your function waited for device 0's kernel", True),
    "copied_back_without_its_context": ([("        with using(contexts[k]):\n            grey[lo:hi]",
                                          "        if True:\n            grey[lo:hi]")],
                                        "device 1's results were copied back while device 0's "
                                        "context was current", True),
    # blind audit TEC-gray_split-1 (was "device 1 was launched on a grid of no blocks: its share
    # of the images was empty, ... Hint: ... skip a device with nothing to do (if lo == hi:
    # continue)", a share of 4 images): the parentheses of (hi - lo) * height left out
    "rows_without_parentheses": ([("rows = (hi - lo) * height", "rows = hi - lo * height")],
                                 "device 1's kernel was launched on rows = -104, where its share "
                                 "of 4 images has 148 rows: rows = hi - lo * height multiplies lo "
                                 "alone by height (7 - 3 * 37 = -104)", True),
    "rows_of_one_image": ([("rows = (hi - lo) * height", "rows = height")],
                          "device 0's kernel was launched on 37 rows, where its share has 111",
                          True),
    # blind audit TTC-gray_split-1 (was "device 0's kernel was launched on 37 rows, where its
    # share has 111 ... Hint: ... rows = (hi - lo) * height", the rows the function computed):
    # the image's height passed to the kernel for the share's rows (on one device too)
    "height_passed_for_rows": ([("np.int32(width), np.int32(rows)",
                                 "np.int32(width), np.int32(height)")],
                               ("device 0's kernel was given np.int32(height) (37 rows, one "
                                "image's) as its rows, where its share has ",
                                "only the first image of the share was converted",
                                "Hint: pass the share's rows to the kernel: kernels[k](rgb_k, "
                                "grey_k, np.int32(width), np.int32(rows)"), False),
    # blind audit TGC-gray_split-1 (was "device 0's kernel was launched on 53 rows, where its
    # share has 111 ... Hint: ... rows = (hi - lo) * height", the rows being right): the kernel's
    # two ints passed in the wrong order (on one device too: the share is then the whole batch)
    "ints_swapped": ([("np.int32(width), np.int32(rows)", "np.int32(rows), np.int32(width)")],
                     "device 0's kernel got its two ints in the wrong order: width = ", False),
    # blind audit THC-gray_split-1 (was "your function raised OutOfBoundsError at line 26 of your
    # cell (grey[lo:hi] = grey_k.get()): ... Hint: a copy or a kernel failed: device k's arrays
    # must be made with device k's context current, ...", the contexts right): rows from the width
    "rows_from_the_width": ([("rows = (hi - lo) * height", "rows = (hi - lo) * width")], (
        "device 0's kernel was launched on rows = 159 = (hi - lo) * width (3 * 53), where its "
        "share of 3 images has 111 rows, (hi - lo) * height (3 * 37): width where height "
        "belongs, so the kernel was told of more rows than the share has and read past the end "
        "of rgb_k (7 images of 53 x 37, 2 devices). Hint: a share of hi - lo images is one image "
        "of (hi - lo) * height rows for the kernel: rows = (hi - lo) * height"), True),
    # blind audit TPC-gray_split-1 (was "device 0's kernel was launched on rows = 111, where its
    # share of 37 images has 37 rows ... Hint: ... rows = (hi - lo) * height", the rows right):
    # the device number for the share, one image uploaded, images[k] for images[lo:hi]
    "one_image_uploaded": ([("gpuarray.to_gpu(images[lo:hi])", "gpuarray.to_gpu(images[k])")],
                           ("device 0's rgb_k holds one image, shape (37, 53, 3), not its share "
                            "of ", "(rgb_k = gpuarray.to_gpu(images[k])) uploads one image",
                            "so its kernel, launched on rows = ",
                            "Hint: upload the device's share, images lo to hi - 1: rgb_k = "
                            "gpuarray.to_gpu(images[lo:hi])"), False),
    "whole_batch_uploaded": ([("gpuarray.to_gpu(images[lo:hi])", "gpuarray.to_gpu(images)")],
                             "device 0 was given all 7 images but converts 3", True),
    "last_device_never_launched": ([("    for k in range(n):\n", "    for k in range(n - 1):\n")],
                                   "device 1's kernel was never launched", True),
    # blind audit TVC-gray_split-1 (was "your function raised OutOfBoundsError at line 26 of your
    # cell (grey[lo:hi] = grey_k.get()): ... a read ... past the end of a 17649-byte allocation
    # ... Hint: ... do device k's work inside `with using(contexts[k]):` ...", contexts it used
    # right): the width passed in bytes (width * 3), where the kernel takes it in pixels
    "width_in_bytes": ([("np.int32(width), np.int32(rows)", "np.int32(width * 3), np.int32(rows)")],
                       ("device 0's kernel was given width = 159 = 3 * 53, the bytes of a row "
                        "of 53 pixels", "Hint: pass the width in pixels: np.int32(width)"), False),
    "grid_rounded_down": ([("grid=((width + 31) // 32, (rows + 7) // 8)",
                            "grid=(width // 32, rows // 8)")], "rounded down", False),
    # blind audit TZC-gray_split-1 (was "...: rounded down", a grid rounded up): x from the height
    "grid_x_from_the_height": ([("grid=((width + 31) // 32,", "grid=((height + 31) // 32,")], (
        "grid x is 1 = (height + 31) // 32 (line 19 of your cell: ", "from the images' height (29)"
        ", where grid x counts the blocks across a row: 1 block of 32 covers 32 of the width's 40",
        "Hint: grid x comes from the width: grid = ((width + 31) // 32, (rows + 7) // 8)"), False),
    "grid_axes_swapped": ([("grid=((width + 31) // 32, (rows + 7) // 8)",
                            "grid=((rows + 7) // 8, (width + 31) // 32)")],
                          "its x and y are swapped", False),
    # blind audit TDC-gray_split-1 (was "device 0's grid covers 16 x 448 pixels of its 53 x 111:
    # rounded down ... Hint: round the grid up: ...", a grid that was rounded up): the block's x
    # and y swapped
    "block_axes_swapped": ([("block=(32, 8, 1)", "block=(8, 32, 1)")],
                           "device 0's block is (8, 32, 1), its x and y swapped: the grid "
                           "((width + 31) // 32, (rows + 7) // 8) is made for blocks of "
                           "(32, 8, 1)", False),
    # blind audit TNC-gray_split-1 (was "device 0's block is (32, 8, 1), its x and y swapped ...
    # Hint: block=(8, 32, 1) ...", the block the TODO gives): the grid's divisors swapped
    "grid_divisors_swapped": ([("grid=((width + 31) // 32, (rows + 7) // 8)",
                                "grid=((width + 7) // 8, (rows + 31) // 32)")],
                              ("device 0's grid ((width + 7) // 8, (rows + 31) // 32) divides "
                               "the width by 8 and the rows by 32, where its block is (32, 8, 1)",
                               "Hint: divide the width by block x (32) and the rows by block y "
                               "(8): grid = ((width + 31) // 32, (rows + 7) // 8)"), False),
    "grid_of_one_image_s_rows": ([("(rows + 7) // 8)", "(height + 7) // 8)")],
                                 "its y covers one image's 37 rows, not the share's 111", True),
    "float_output": ([("gpuarray.empty((hi - lo, height, width), np.uint8)",
                       "gpuarray.empty((hi - lo, height, width), np.float32)")],
                     "device 0's output is float32", False),
    "nothing_returned": ([("    return grey\n", "    return None\n")],
                         "your function returned NoneType", False),
    "wrong_shape": ([("    return grey\n", "    return grey.reshape(count, -1)\n")],
                    "returned an array of shape", False),
    # blind audit TC-gray_split-1 (was "none of the images was converted: the result is all 0
    # ... Hint: launch each device's kernel on its share ...", the stub's): break for continue
    "stops_at_an_empty_share": ([("            continue\n", "            break\n")],
                                "the loop stopped at device 0's empty share: device 1's share "
                                "(1 image) was never converted", True),
    # blind audit AC (was '4 of 7 grey images are wrong (images 3, 4, 5, 6) ... Hint: ... give
    # device k the images lo = k * count // n ...'): return grey indented into the collecting loop
    "returned_in_the_collecting_loop": ([("    return grey\n", "        return grey\n")], (
        "images 3 to 6, device 1's share, are still 0", "Hint: dedent return grey"), True),
    # blind audit TC-gray_split-2 (was "your function raised ValueError: could not broadcast
    # input array from shape (4,37,53) into shape (3,37,53) ... Hint: read the message: it names
    # the call that failed ..."): grey_k, the first loop's last, read for every share
    "last_device_s_output_for_every_share": (
        [("queued.append((k, lo, hi, rgb_k, grey_k))", "queued.append((k, lo, hi))"),
         ("for k, lo, hi, rgb_k, grey_k in queued:", "for k, lo, hi in queued:")],
        "raised ValueError at line 23 of your cell (grey[lo:hi] = grey_k.get()): could not "
        "broadcast input array from shape (4,37,53) into shape (3,37,53): with device 0's "
        "context current it copied back device 1's output (4 images), not device 0's (3): "
        "grey_k is left from the first loop, the last device's", True),
}


# float_output's function casts the float garbage its kernel left into uint8 (NumPy warns there)
@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("name", sorted(WRONG))
def test_wrong_function_fails_with_its_hint(name, capsys):
    replacements, expected, needs_several = WRONG[name]
    if needs_several and not SEVERAL:
        pytest.skip("this mistake shows only with several devices")
    assert_named(replacements, expected, capsys)


@pytest.mark.parametrize("name", ["context_left_pushed", "device_0_pushed_again"])
def test_a_context_left_pushed_is_caught_and_popped_when_device_0_is_current(name, capsys):
    """As in a notebook on a GPU, where pycuda.autoprimaryctx made device 0's primary context
    current: a function that pushes it again and never pops leaves the same context current
    (with one GPU, the only one there is), so only the depth of the context stack shows the
    mistake. The check then leaves the stack as it found it: a context left pushed makes PyCUDA
    abort the process at exit."""
    from helpers.ch11.multigpu import device_contexts

    device_0 = device_contexts()[0]
    device_0.push()
    try:
        before = context_stack()
        ok, out = run_check(define(wrong(*WRONG[name][0])), capsys)
        after = context_stack()
    finally:
        device_0.pop()
    assert not ok and "a context it pushed was not popped" in out, out
    assert after == before, f"the check left {len(after)} contexts pushed, {len(before)} before"
