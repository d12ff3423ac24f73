"""The models of notebook 11's exercise (``helpers.exercises.gray_split``): shares whose end
takes the floor before the product, (k + 1) * (count // n), so that the last count % n images
belong to no device's share, among others; (``wrong_type``) the right grey levels returned
as float64, the host's array made without a dtype; and what the copies back read
(``last_output_read``, ``returned_in_the_collecting_loop``, ``bounds_left_over``)."""

from __future__ import annotations

import ast
import sys

import numpy as np

from helpers.exercises.learner_code import code_of, raising_frame
from helpers.exercises.split_sum_models import return_in_a_loop


def floored_shares(fn, result, want, n):
    """(what it shows, hint) where the images converted right are exactly those of shares that
    end at (k + 1) * (count // n), from lo = k * count // n or k * (count // n): the last count %
    n images in none (with fewer images than devices every share is empty: another mistake);
    the expression read from ``fn``'s code where known."""
    yield from _ends_one_early(result, want, n)
    count = len(want)
    if n < 2 or count < n or not count % n or getattr(result, "shape", None) != want.shape:
        return
    q = count // n
    right = set(np.flatnonzero(np.abs(result.astype(np.int16) - want).max(axis=(1, 2)) <= 1))
    models = (set().union(*(range(k * count // n, (k + 1) * q) for k in range(n))),
              set(range(n * q)))
    if right not in models:
        return
    left = [i for i in range(count) if i not in right]
    black = " (still 0, black)" if not result[left].any() else ""
    expr, line = _floor_first(fn) or ("(k + 1) * (count // n)", "")
    them = (f"image {left[0]} belongs to no device's share, so it was never converted{black}"
            if len(left) == 1 else f"images {', '.join(map(str, left))} belong to no device's "
            f"share, so they were never converted{black}")
    rest = f"{count % n} image is" if count % n == 1 else f"{count % n} images are"
    yield (f"{them}: the shares end at {expr}{line}, which takes the floor before the product: "
           f"count // n = {count} // {n} = {q}, so device {n - 1}'s share ends at {n * q}, not "
           f"at count = {count}, and the last count % n = {rest} left out",
           "multiply first, then divide: hi = (k + 1) * count // n (and lo = k * count // n), "
           "so that the last share ends at count and the shares differ by one image at most")


def _ends_one_early(result, want, n):
    """(what it shows, hint) where the images left unconverted (still 0) are exactly the last of
    each share, (k + 1) * count // n - 1: shares that end one image early, hi taken as the share's
    last image where it is one past it (a share of one image is then empty); told only where
    some image was converted (none converted is another mistake's)."""
    count = len(want)
    if getattr(result, "shape", None) != want.shape:
        return
    left = sorted({(k + 1) * count // n - 1 for k in range(n)
                   if (k + 1) * count // n > k * count // n})
    right = np.abs(result.astype(np.int16) - want).max(axis=(1, 2)) <= 1
    if not right.any() or result[left].any() or sorted(np.flatnonzero(~right)) != left:
        return
    listed = ", ".join(map(str, left))
    them = (f"image {listed} belongs to no device's share, so it was never converted (still 0, "
            "black): it is" if len(left) == 1 else f"images {listed} belong to no device's "
            "share, so they were never converted (still 0, black): they are")
    yield (f"{them} the last image of each share, (k + 1) * count // n - 1: every share stops "
           "one image before its end, as hi = (k + 1) * count // n - 1 (hi taken for the "
           "share's last image) makes images[lo:hi] do",
           "hi is one past the share's last image: hi = (k + 1) * count // n, and "
           "images[lo:hi], grey[lo:hi] hold images lo to hi - 1")


def _floor_first(fn):
    """``(expression, ' (line L of place: text)')`` of a product of ``fn``'s code one of whose
    factors is a floor division (or a name assigned one), the one with a + 1 first; or None."""
    if (code := code_of(fn)) is None:
        return None
    floors = {t.id for node in ast.walk(code.tree) if isinstance(node, ast.Assign)
              and _floor(node.value, set()) for t in node.targets if isinstance(t, ast.Name)}
    products = sorted((node for node in ast.walk(code.tree) if isinstance(node, ast.BinOp)
                       and isinstance(node.op, ast.Mult)
                       and (_floor(node.left, floors) or _floor(node.right, floors))),
                      key=lambda node: ("+ 1" not in ast.unparse(node), node.lineno))
    for node in products[:1]:
        return ast.unparse(node), f" ({code.at(node)}: {code.text(node)})"
    return None


def _floor(node, names) -> bool:
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv)
            or isinstance(node, ast.Name) and node.id in names)


def host_swapped(fn, err, count, height, width):
    """(what it shows, hint) where a ValueError was raised in the learner's code while an array
    of the host of shape (count, width, height) was there, the images not square: the host
    output allocated with width and height swapped (the line that made it read from ``fn``'s
    code where known); else None."""
    frame = raising_frame(err)
    swapped = (count, width, height)
    names = [name for name, value in (frame.f_locals.items() if frame else ())
             if isinstance(value, np.ndarray) and value.shape == swapped]
    if height == width or not names:
        return None
    made = f"{names[0]}, the host's output, has"
    if code := code_of(fn):
        for node in [n for n in ast.walk(code.tree) if isinstance(n, ast.Assign)
                     and ast.unparse(n.targets[0]) == names[0]][:1]:
            made = f"{code.text(node)} ({code.at(node)}) gave {names[0]} the"
    return (f"{made} shape {swapped}: width and height swapped, where the grey images are "
            f"{(count, height, width)}, as images.shape[:3] is", "an image is height rows of "
            f"width pixels: {names[0]} = np.zeros((count, height, width), np.uint8) (or "
            "images.shape[:3])")


def one_image(fn, launch, height, width):
    """(problem, hint) where device k's RGB array is one image, shape (height, width, 3), as
    images[k] gives, and its kernel was launched on the rows of a share of several: the device
    number taken for the share, with the learner's line that uploads it where known; else None."""
    rgb = launch.args[0]
    if getattr(rgb, "shape", None) != (height, width, 3) or launch.rows <= height:
        return None
    share, where = launch.rows / height, ""
    share = f"{share:g} images" if share != 1 else "1 image"
    if (code := code_of(fn)) is not None:
        node = next((n for n in ast.walk(code.tree) if isinstance(n, ast.Assign) and any(
            isinstance(c, ast.Call) and getattr(c.func, "attr", None) == "to_gpu" and c.args
            and isinstance(c.args[0], ast.Subscript) and not isinstance(c.args[0].slice, ast.Slice)
            for c in ast.walk(n.value))), None)
        if node is not None:
            where = f": {code.quoted(node)} uploads one image"
    return (f"device {launch.device}'s rgb_k holds one image, shape {rgb.shape}, not its share "
            f"of {share}{where}, so its kernel, launched on rows = {launch.rows}, read past the "
            "end of rgb_k", "upload the device's share, images lo to hi - 1: rgb_k = "
            "gpuarray.to_gpu(images[lo:hi])")


WIDTH_NAMES, HEIGHT_NAMES = {"width", "w", "cols", "ncols", "columns"}, {"height", "h", "rows",
                                                                          "nrows"}


def shape_unpacked_swapped(fn, err, height, width):
    """(what it shows, hint) where the images are not square and ``fn``'s code unpacks
    images.shape into four names whose second is a width's and third a height's (count, width,
    height, _ = images.shape, an image library's order), which then held the images' height and
    width: as the frame of ``err`` (a ValueError raised in the learner's code) says, or, with
    ``err`` None, as the result's shape, (count, width, height), showed the caller; else None."""
    frame = raising_frame(err)
    if height == width or (err is not None and frame is None) or (code := code_of(fn)) is None:
        return None
    seen = frame.f_locals if frame is not None else None
    for node in ast.walk(code.tree):
        target = node.targets[0] if isinstance(node, ast.Assign) else None
        if not (isinstance(target, ast.Tuple) and len(target.elts) == 4
                and ast.unparse(node.value).endswith("images.shape")
                and all(isinstance(e, ast.Name) for e in target.elts[1:3])):
            continue
        across, down = (e.id for e in target.elts[1:3])
        if across.lower() not in WIDTH_NAMES or down.lower() not in HEIGHT_NAMES or (
                seen is not None and (seen.get(across), seen.get(down)) != (height, width)):
            return None
        order = ", ".join(ast.unparse(e) for e in target.elts)
        right = order.replace(f"{across}, {down}", f"{down}, {across}", 1)
        return (f"{code.text(node)} ({code.at(node)}) unpacks the shape in the wrong order: "
                f"images is (count, height, width, 3), rows before columns, so your {across} = "
                f"{height} is the images' height and your {down} = {width} their width, and "
                "every shape and launch made from them came out swapped",
                f"unpack in the array's order: {right} = images.shape")
    return None


def rows_short(fn, launch, height, uploaded):
    """(problem, hint) where device k's kernel was launched on fewer rows than its share has
    (``uploaded``): where they are one image's and the learner's launch passes the image's height
    itself as the kernel's rows (np.int32(height)), that argument, with its line; else the count."""
    k, rows = launch.device, launch.rows
    call = None if rows != height or (code := code_of(fn)) is None else next((
        c for c in ast.walk(code.tree) if isinstance(c, ast.Call) and len(c.args) >= 4
        and {"block", "grid"} & {w.arg for w in c.keywords} and {
            n.id for n in ast.walk(c.args[3]) if isinstance(n, ast.Name)} & {"height", "h"}), None)
    if call is None:
        return (f"device {k}'s kernel was launched on {rows} rows, where its share has "
                f"{uploaded}", "a share of hi - lo images is one image of (hi - lo) * height "
                "rows for the kernel: rows = (hi - lo) * height")
    return (f"device {k}'s kernel was given {ast.unparse(call.args[3])} ({height} rows, one "
            f"image's) as its rows, where its share has {uploaded} ({uploaded // height} images "
            f"of {height} rows): {code.quoted(call)} passes the image's height, so the kernel "
            f"stops at row {height} and only the first image of the share was converted",
            "pass the share's rows to the kernel: kernels[k](rgb_k, grey_k, np.int32(width), "
            "np.int32(rows), ...), with rows = (hi - lo) * height")


def stored_at_index(fn, err):
    """(what it shows, hint) where a ValueError was raised at a line of ``fn``'s code that
    assigns a device's copied-back share (a .get()) to a host array indexed by one name, not a
    slice (grey[k] = grey_k.get()), with the frame's lo, hi a share of other than one image: the
    share stored at the device's number, one image, where it belongs at grey[lo:hi]; else None."""
    frame = raising_frame(err)
    if frame is None or (code := code_of(fn)) is None:
        return None
    seen, line = frame.f_locals, frame.f_lineno - code.first + 1
    for node in ast.walk(code.tree):
        target = node.targets[0] if isinstance(node, ast.Assign) else None
        if not (isinstance(target, ast.Subscript) and node.lineno == line
                and isinstance(target.slice, ast.Name) and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "attr", None) == "get"):
            continue
        host, index = ast.unparse(target.value), target.slice.id
        where, lo, hi = seen.get(index), seen.get("lo"), seen.get("hi")
        array = seen.get(host)
        if not (isinstance(where, int) and isinstance(lo, int) and isinstance(hi, int)
                and isinstance(array, np.ndarray) and hi - lo != 1):
            return None
        device = seen.get("k", where)
        return (f"the line stores device {device}'s share of {hi - lo} images (images {lo} to "
                f"{hi - 1}) at {host}[{index}] = {host}[{where}], one image of shape "
                f"{array[where].shape}: the device's number is not its images' place",
                f"store the share at its images' place: {host}[lo:hi] = "
                f"{ast.unparse(node.value)}")
    return None


def width_in_bytes(k, args):
    """(problem, hint) of device k's launch given a row's bytes, 3 * width, as the width (a launch
    refused, as a GPU would read and write past the share): rgb_to_gray takes the width in
    pixels and multiplies by 3 itself; None for any other width. ``args``: the launch's, the
    share uploaded first, (images, height, width, 3)."""
    shape = getattr(args[0], "shape", ())
    if len(shape) != 4 or not shape[2] or int(args[2]) != 3 * shape[2] or int(args[3]) < 2:
        return None   # one row: its pixels lie where they should
    width, rows = shape[2], int(args[3])
    return (f"device {k}'s kernel was given width = {3 * width} = 3 * {width}, the bytes of a row "
            f"of {width} pixels, where rgb_to_gray(rgb, gray, width, height) takes the width in "
            f"pixels: with pixel i = y * width + x, row y would start at pixel y * {3 * width}, "
            f"not y * {width}, and the share's last row, {rows - 1}, at pixel "
            f"{(rows - 1) * 3 * width}, past the end of its {rows * width} pixels (in rgb_k and "
            "grey_k), so the launch was not run", "pass the width in pixels: np.int32(width); "
            "the kernel multiplies by 3 for the bytes itself (rgb[3 * i], rgb[3 * i + 1], "
            "rgb[3 * i + 2])")


def arrays_swapped(k, args):
    """(problem, hint) of device k's launch given its two arrays the other way round, the grey
    share, (images, height, width), first and the RGB share, (images, height, width, 3), second,
    as memcpy(dest, src) takes them (a launch refused, as a GPU would read the grey share as RGB,
    past its end, and write into the RGB share); their names in the caller's code where its
    frame holds them both; None for any other launch."""
    first, second = (tuple(getattr(a, "shape", ())) for a in args[:2])
    if len(first) != 3 or second != (*first, 3):
        return None
    frame, names = sys._getframe(1), None
    while frame is not None and names is None:  # kernels[k]'s caller: the learner's function
        found = [next((n for n, v in frame.f_locals.items() if v is a), None) for a in args[:2]]
        names, frame = (found if None not in found else None), frame.f_back
    grey, rgb = names or ("the grey share", "the RGB share")
    call = f", kernels[{k}]({grey}, {rgb}, ...)" if names else ""
    return (f"device {k}'s kernel was given its two arrays the other way round{call}: {grey}, of "
            f"shape {first}, the grey share's, came first, and {rgb}, of shape {second}, the RGB "
            "share's, second, where rgb_to_gray(rgb, gray, width, height) takes the RGB input "
            f"first: it would read {grey} as RGB, past its end (it holds a third of the RGB share's "
            f"bytes), and write the grey levels into {rgb}, so the launch was not run", "pass the "
            f"RGB share first, then the grey one: kernels[k]({rgb if names else 'rgb_k'}, "
            f"{grey if names else 'grey_k'}, np.int32(width), np.int32(rows), ...)")


ALLOCATORS = {"zeros", "empty", "ones"}   # NumPy's, whose dtype defaults to float64


def wrong_type(fn, result, want):
    """(what it shows, hint) for a result not of the grey images' shape and type (``want``'s):
    where it holds the right grey levels as float64, the array it returns allocated without a
    dtype (np.zeros(shape): NumPy's default), the line that made it as read from ``fn``'s code;
    else what it returned."""
    count, height, width = want.shape
    told = (f"your function returned an array of shape {result.shape} and dtype {result.dtype}; "
            f"expected ({count}, {height}, {width}) uint8", "one grey image (height, width) of "
            "uint8 for each image of the batch")
    if result.shape != want.shape or result.dtype != np.float64 or not (
            np.abs(result - want) <= 1).all():   # to one level, as _wrong_result compares
        return told
    code = code_of(fn)
    returned = {ast.unparse(n.value) for n in ast.walk(code.tree) if isinstance(n, ast.Return)
                and n.value is not None} if code else set()
    for node in ast.walk(code.tree) if returned else ():
        call = node.value if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if (isinstance(call, ast.Call) and ast.unparse(node.targets[0]) in returned
                and getattr(call.func, "attr", None) in ALLOCATORS and len(call.args) == 1
                and not any(k.arg == "dtype" for k in call.keywords)):
            name, made = ast.unparse(node.targets[0]), ", ".join(
                [ast.unparse(call.args[0]), "np.uint8", *map(ast.unparse, call.keywords)])
            return (f"{code.text(node)} ({code.at(node)}) gives no dtype, so {name} is float64, "
                    "NumPy's default, and your function returned the right grey levels as "
                    "float64 where the grey images are uint8", f"give {ast.unparse(call.func)} "
                    f"the dtype: {name} = {ast.unparse(call.func)}({made})")
    return told


def grid_x_from_height(fn, launch, width, height):
    """(what it shows, hint) where ``launch``'s grid x is the height's blocks, (height + bx - 1)
    // bx, and falls short of the width: read from ``fn``'s grid=(...) where it names the height
    and not the width; else from the numbers, where they cannot be the width rounded down."""
    (gx, _), (bx, by) = launch.grid[:2], launch.block[:2]
    if gx != -(-height // bx) or gx * bx >= width:
        return None
    code = code_of(fn)
    grids = [k.value.elts[0] for node in ast.walk(code.tree) if isinstance(node, ast.Call)
             for k in node.keywords if k.arg == "grid" and isinstance(k.value, ast.Tuple)
             and k.value.elts] if code else []
    names = {n.id for node in grids[:1] for n in ast.walk(node) if isinstance(n, ast.Name)}
    if grids and "height" in names and "width" not in names:
        told = f"{ast.unparse(grids[0])} ({code.at(grids[0])}: {code.text(grids[0])})"
    elif gx != width // bx:
        told = f"({height} + {bx - 1}) // {bx}, the images' height's blocks"
    else:
        return None
    blocks = "block" if gx == 1 else "blocks"
    return (f"device {launch.device}'s grid x is {gx} = {told}, from the images' height "
            f"({height}), where grid x counts the blocks across a row: {gx} {blocks} of {bx} "
            f"cover{'s' if gx == 1 else ''} {gx * bx} of the width's {width} pixels, so the "
            f"right {width - gx * bx} columns of every image were never converted",
            f"grid x comes from the width: grid = ((width + {bx - 1}) // {bx}, (rows + {by - 1}) "
            f"// {by})")


def last_output_read(reads, launches, count, n):
    """(what it shows, hint) where the first output copied back was the last launched device's,
    read with another launched device's context current, and every read was of it: the
    collecting loop read grey_k, left from the first loop; else None."""
    devices = [launch.device for launch in launches]
    if len(set(devices)) < 2 or not reads or any(k != devices[-1] for k, _ in reads):
        return None
    last, current = devices[-1], reads[0][1]
    if current not in devices or current == last:
        return None
    share = {k: (k + 1) * count // n - k * count // n for k in (last, current)}
    return (f"with device {current}'s context current it copied back device {last}'s output "
            f"({share[last]} images), not device {current}'s ({share[current]}): grey_k is left "
            "from the first loop, the last device's", "keep each device's output with its "
            "share and copy back that one: queued.append((k, lo, hi, rgb_k, grey_k)), then for "
            "k, lo, hi, rgb_k, grey_k in queued: grey[lo:hi] = grey_k.get()")


def returned_in_the_collecting_loop(fn, result, want, launches, reads):
    """(what it shows, hint) where the function returned after the collecting loop's first pass:
    two devices or more launched, the first one's output alone read (``reads``: (device, the
    current device) of each get()), the images of its share right and those of the others'
    shares still 0, and ``fn``'s code has a return inside a for loop; else None."""
    devices = list(dict.fromkeys(launch.device for launch in launches))
    if (len(devices) < 2 or {k for k, _ in reads} != {devices[0]} or getattr(
            result, "shape", None) != want.shape or (at := return_in_a_loop(fn)) is None):
        return None
    shares = {launch.device: getattr(launch.args[0], "shape", (0,))[0] for launch in launches}
    starts = {k: sum(shares.get(j, 0) for j in range(k)) for k in devices}
    first, rest = devices[0], devices[1:]
    right = np.abs(result.astype(np.int16) - want).max(axis=(1, 2)) <= 1
    if not right[starts[first]:starts[first] + shares[first]].all() or any(
            result[starts[k]:starts[k] + shares[k]].any() for k in rest):
        return None
    held = "; ".join(f"image {starts[k]}" if shares[k] == 1 else
                     f"images {starts[k]} to {starts[k] + shares[k] - 1}" for k in rest)
    whose = ", ".join(f"device {k}'s" for k in rest)
    return (f"{held}, {whose} share, {'is' if sum(shares[k] for k in rest) == 1 else 'are'} "
            f"still 0: the function returned after the collecting loop's first pass, which "
            f"copied back device {first}'s share alone; {whose} kernel ran, but its output was "
            f"never copied back (its get() never ran): {at[2]} (line {at[0]} of {at[1]}) is "
            f"indented inside the loop, {at[3]}", f"dedent {at[2]} out of the collecting loop, "
            "to the function's level, so that it runs once, after every device's share is "
            "copied back")


def bounds_left_over(fn, err, reads, launches, count, n):
    """(what it shows, hint) where a ValueError was raised at a line of ``fn``'s code storing a
    copied-back output at host[lo:hi], the output read (``reads``' last) another device's than
    the last launched, and the frame's lo, hi that last device's share: the collecting loop
    does not set lo and hi (the list holds no lo, hi), so they are what the launching loop left;
    else None."""
    devices = list(dict.fromkeys(launch.device for launch in launches))
    frame, code = raising_frame(err), code_of(fn)
    if frame is None or code is None or not reads or len(devices) < 2 or reads[-1][0] == devices[-1]:
        return None
    read, last, line = reads[-1][0], devices[-1], frame.f_lineno - code.first + 1
    bounds = {k: (k * count // n, (k + 1) * count // n) for k in (read, last)}
    if (frame.f_locals.get("lo"), frame.f_locals.get("hi")) != bounds[last]:
        return None
    stores = [node for node in ast.walk(code.tree) if isinstance(node, ast.Assign)
              and node.lineno == line and isinstance(node.targets[0], ast.Subscript)
              and ast.unparse(node.targets[0].slice) == "lo:hi"]
    loop = next((node for node in ast.walk(code.tree) if isinstance(node, ast.For) and stores
                 and any(inner is stores[0] for inner in ast.walk(node))), None)
    if loop is None or not isinstance(loop.iter, ast.Name):
        return None
    (lo, hi), share = bounds[last], bounds[read][1] - bounds[read][0]
    target = ", ".join(ast.unparse(e) for e in getattr(loop.target, "elts", [loop.target]))
    host, held = ast.unparse(stores[0].targets[0].value), loop.iter.id
    return (f"the line stores device {read}'s {share} grey image{'s' * (share != 1)} into "
            f"{host}[{lo}:{hi}], the last launched device's share (device {last}'s): lo and hi "
            f"are not set in the collecting loop (for {target} in {held}:), so they still hold "
            f"the values the launching loop left", f"keep each device's lo and hi with its "
            f"output: {held}.append(({target}, lo, hi)), and unpack them there: for {target}, "
            f"lo, hi in {held}:")
