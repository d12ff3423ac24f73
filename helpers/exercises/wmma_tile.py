"""Checker for the first exercise of notebook 13: ``cuda_src/exercises/wmma_tile.cu``.

The kernel ``wmma_tile(const half *A, const half *B, float *C)`` must compute C = A B for 16 x 16
matrices with one warp on the tensor cores: A stored row after row, B column after column
(B[k][c] at B[c * 16 + k]), C row after row. The usual mistakes give a recognisable product:
B's fragment declared row_major computes A B^T, A's declared col_major A^T B, C stored column
after column (A B)^T, a fragment loaded from the other matrix B^T B or A A^T, no mma_sync zeros;
the checker names each, and a store from a pointer of each lane's own (C + k * lane) from the
places written in C and in its long guard zone. Each case runs twice: an accumulator never set
to 0 differs (or, on the simulator, holds a local's value never set); C holds 1000 before the
second, so that an accumulator loaded from C shows as A B + 1000.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises.common import NEVER_SET, Input, Output
from helpers.exercises.failure import MATRIX_HINT
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import body_words, kernel_words

CASES = [13, 1013]  # the seeds of the two pairs of matrices
LANE_STEPS = range(1, 257)
"""The steps k of a store from C + k * lane (every lane its own pointer) that C's guard zone,
GUARD elements after it, takes in without a crash."""
GUARD = 32 * LANE_STEPS[-1]


def _draw(rng):
    return [int(rng.integers(1, 2**31))]


def _where(case):
    return f"with A and B two 16 x 16 matrices of random halves (seed {case})"


def _launch(case):
    rng = np.random.default_rng(case)
    a = rng.uniform(-2, 2, (16, 16)).astype(np.float16)
    b = rng.uniform(-2, 2, (16, 16)).astype(np.float16)        # B[k][c]
    model = (a.astype(np.float64), b.astype(np.float64))
    # two launches: an accumulator never set differs; one loaded from C holds A B + 1000 in the second
    c = Output(256, guard=GUARD, poisons=(None, 1000.0), held=False)  # _mistakes names LOADED itself
    return Launch((Input(a), Input(np.ascontiguousarray(b.T)), c), block=(32, 1, 1),
                  grid=(1, 1), model=model)


def _is(got, want):
    return bool(np.allclose(got, want, rtol=1e-4, atol=1e-3))


UNSET = ("the accumulator started with what its registers held: C differs between two launches "
         "on the same A and B, or holds the simulator's value of a local never set (-1.7e38)")
ONCE_HINT = "call mma_sync(c, a, b, c) once, after setting c to 0"
LAYOUT_HINT = "a fragment's layout is how its matrix is stored: wmma::row_major or wmma::col_major"
# (what C came out as, from A and B; the mistake; the hint)
LOOKALIKES = [
    (lambda a, b: a @ b.T, "C is A B^T: B was loaded as row_major, but B is stored column after column",
     "declare B's fragment wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major>"),
    (lambda a, b: a.T @ b, "C is A^T B: A was loaded as col_major, but A is stored row after row",
     "declare A's fragment with wmma::row_major"),
    (lambda a, b: a.T @ b.T, "C is A^T B^T: both layouts are the wrong way round", LAYOUT_HINT),
    (lambda a, b: (a @ b).T, "C holds A B transposed: C was stored column after column",
     "store with store_matrix_sync(C, c, 16, wmma::mem_row_major)"),
    (lambda a, b: b.T @ b, "C is B^T B: A's fragment was loaded from B",
     "load each fragment from its own matrix: load_matrix_sync(fa, A, 16)"),
    (lambda a, b: a @ a.T, "C is A A^T: B's fragment was loaded from A",
     "load each fragment from its own matrix: load_matrix_sync(fb, B, 16)"),
    (lambda a, b: (a @ b.T).T, "C holds A B^T transposed: B was loaded as row_major (B is stored "
     "column after column) and C stored column after column",
     "declare B's fragment wmma::col_major and store with wmma::mem_row_major"),
    (lambda a, b: (a.T @ b).T, "C holds A^T B transposed: A was loaded as col_major (A is stored "
     "row after row) and C stored column after column",
     "declare A's fragment wmma::row_major and store with wmma::mem_row_major"),
    (lambda a, b: b @ a, "C is B A, (A^T B^T) transposed: both fragments' layouts and C's are the "
     "wrong way round", f"{LAYOUT_HINT}, and C is stored with wmma::mem_row_major"),
    (lambda a, b: 2 * a @ b, "C is twice A B: the product was added twice", ONCE_HINT),
]
LOADED = ("the accumulator was loaded from C's old contents",
          "start the accumulator at 0: wmma::fill_fragment(c, 0.0f)")
"""A kernel that loads its accumulator from C (``load_matrix_sync(c, C, ...)``): the problem's
start and the hint (``common.Output``'s ``held=`` words for the runner's launches, ``held``)."""
ORDER_HINT = ("fill_fragment(c, 0.0f) first, then the loads, mma_sync(c, a, b, c) and "
              "store_matrix_sync(C, c, ...) of the fragment mma_sync wrote, its first argument: "
              "mma_sync adds the product to c, a fill_fragment after it throws the product away")


def _mistakes(case, run):
    a, b = run.model
    got = run.out.got.reshape(16, 16).astype(np.float64)
    yield from _stored_per_lane(run.out)
    yield from _stored_shape(run.out)
    yield from _stored_wide(a @ b, run.out)
    if run.out.past.size:
        yield ("elements past C's 256 were written",
               "the warp stores one 16 x 16 tile: store_matrix_sync(C, c, 16, wmma::mem_row_major)")
    if run.out.unwritten.all():
        yield ("C was never written (it still holds the value it was filled with)",
               "store the accumulator with wmma::store_matrix_sync(C, c, 16, wmma::mem_row_major)")
    yield from _stored_apart(a @ b, run.out)
    if run.out.unwritten.any():
        yield (f"{int(run.out.unwritten.sum())} of C's 256 elements were never written",
               "store_matrix_sync stores the whole tile: give it C, the fragment, 16 and mem_row_major")
    if _is(run.out.runs[-1].reshape(16, 16), a @ b + 1000):
        yield f"{LOADED[0]}: C came out as A B plus what C held before the launch", LOADED[1]
    if not _is(got, a @ b):
        yield from _loaded_after_mma(run.kernel)
    if run.out.differs or (run.out.got == NEVER_SET).any():
        yield from _filled_another(run.kernel)
        yield UNSET, "set it to 0 before mma_sync: wmma::fill_fragment(c, 0.0f)"
    if _is(got, a @ b):
        return
    if _is(got, 0 * got):
        yield from _stored_before_mma(run.kernel)
        yield ("C is all zeros: no product reached the fragment that was stored (mma_sync never "
               "called, its result put into another fragment than the one stored, or the "
               "accumulator set to 0 again after it)", ORDER_HINT)
    filled = float(np.median(got - a @ b))
    if _is(got, a @ b + filled):
        yield (f"C is A B + {filled:g} everywhere: the accumulator was filled with {filled:g}, "
               "not 0", "mma_sync adds A B to what the accumulator holds: wmma::fill_fragment(c, 0.0f)")
    if _is(got, (a @ b).T):
        yield from _loads_swapped(run.kernel)
    for model, problem, hint in LOOKALIKES:
        if _is(got, model(a, b)):
            yield problem, hint
    times = round(float(np.median(got / (a @ b))))
    if times > 2 and _is(got, times * a @ b):
        yield (f"C is exactly {times} times A B: mma_sync ran {times} times, each adding the whole "
               "product to c (one mma_sync multiplies the whole 16 x 16 tiles, all 16 steps "
               "along k)", ONCE_HINT)
    if not np.isfinite(got).all():
        yield ("C holds NaN or infinity: an input or the accumulator held something else than A, B and 0",
               "set the accumulator with fill_fragment(c, 0.0f), and load A and B with a leading dimension of 16")
    yield from _stored_by_hand(run.kernel, got, a @ b)
    r, c = np.unravel_index(np.argmax(np.abs(got - a @ b)), got.shape)
    yield (f"C is not A B (C[{r}][{c}] = {got[r, c]:.4g}, expected {(a @ b)[r, c]:.4g})",
           "the leading dimension is 16 for A, B and C (the elements from one row, or column, to "
           "the next), and the accumulator starts at 0 (fill_fragment)")


def _stored_by_hand(kernels, got, product):
    """C holds A B's 256 values, each once, in other places (the same values sorted), and the
    kernel's text never calls store_matrix_sync but reads a fragment's elements, frag.x[...]: it
    wrote the accumulator's elements itself, though which of the tile's elements a lane's
    fragment holds, and in what order, is unspecified (the simulated twin's text)."""
    words = body_words(kernels)
    read = [words[i - 1] for i in range(1, len(words) - 2) if words[i:i + 3] == [".", "x", "["]]
    if not read or "store_matrix_sync" in words or \
            not np.allclose(np.sort(got.ravel()), np.sort(product.ravel()), 1e-4, 1e-3):
        return
    r, c = np.unravel_index(np.argmax(np.abs(got - product)), got.shape)
    frag = read[0]
    yield (f"C holds A B's 256 values, but in other places (C[{r}][{c}] = {got[r, c]:.4g}, "
           f"expected {product[r, c]:.4g}): the kernel never calls store_matrix_sync and writes "
           f"the accumulator's elements {frag}.x[e] itself, but which elements of the tile a "
           "lane's fragment holds, and in what order, is unspecified",
           "let store_matrix_sync put each lane's elements where they go: "
           f"wmma::store_matrix_sync(C, {frag}, 16, wmma::mem_row_major)")


def _stored_before_mma(kernels):
    """C all zeros, and the kernel's text calls store_matrix_sync on the fragment that mma_sync
    writes (its first argument) before it calls mma_sync: C got the accumulator as fill_fragment
    left it. The text is the simulated twin's (the same source on a GPU)."""
    words = body_words(kernels)
    calls = {name: [i for i in range(len(words) - 2) if words[i] == name and words[i + 1] == "("]
             for name in ("mma_sync", "store_matrix_sync")}
    if len(calls["mma_sync"]) != 1 or len(calls["store_matrix_sync"]) != 1:
        return
    mma, store = calls["mma_sync"][0], calls["store_matrix_sync"][0]
    fragment = words[mma + 2]
    if store < mma and fragment in words[store:mma]:
        yield (f"C is all zeros: store_matrix_sync comes before mma_sync in the kernel, so it "
               f"stored {fragment} while it still held the 0s of fill_fragment, and the product "
               f"mma_sync added to {fragment} after the store never reached C",
               f"mma_sync first, then store_matrix_sync: wmma::mma_sync({fragment}, ...) and "
               f"after it wmma::store_matrix_sync(C, {fragment}, 16, wmma::mem_row_major)")


def _calls(words, name):
    """Each call of ``name`` in ``words``: (its index, its arguments' texts)."""
    found = []
    for i in range(len(words) - 1):
        if words[i] == name and words[i + 1] == "(":
            args, depth, j = [[]], 0, i + 2
            while j < len(words) and (depth or words[j] != ")"):
                depth += {"(": 1, ")": -1}.get(words[j], 0)
                args.append([]) if words[j] == "," and not depth else args[-1].append(words[j])
                j += 1
            found.append((i, ["".join(arg) for arg in args]))
    return found


def _filled_another(kernels):
    """The accumulator never set, and the kernel's text calls fill_fragment, but on another
    fragment than mma_sync's c (its last argument): one of the inputs, which a load may then
    overwrite. The text is the simulated twin's (the same source on a GPU)."""
    words = body_words(kernels)
    mma, fills = _calls(words, "mma_sync"), _calls(words, "fill_fragment")
    if len(mma) != 1 or len(mma[0][1]) != 4 or not fills or \
            any(call[0] == mma[0][1][3] for _, call in fills):
        return
    at, call = fills[0]
    frag, acc, args = call[0], mma[0][1][3], mma[0][1]
    role = {args[1]: "mma_sync's a", args[2]: "mma_sync's b"}.get(frag, "another fragment")
    loads = [load for i, load in _calls(words, "load_matrix_sync") if i > at and load[0] == frag]
    over = f", and load_matrix_sync({', '.join(loads[0])}) then overwrote it" if loads else ""
    yield (f"fill_fragment({', '.join(call)}) set {frag}, {role}, not the accumulator {acc}"
           f"{over}: {acc} was never set, so it started with what its registers held (C "
           "differs between two launches on the same A and B, or holds the simulator's value "
           "of a local never set, -1.7e38)",
           f"set the accumulator to 0 before mma_sync: wmma::fill_fragment({acc}, 0.0f)")


def _loaded_after_mma(kernels):
    """The kernel's text calls mma_sync once, and loads its a or b fragment only after it: the
    product took a fragment that held nothing yet (its registers' old contents). The text is the
    simulated twin's (the same source on a GPU), so the verdict is the same on both."""
    words = body_words(kernels)
    mma, loads = _calls(words, "mma_sync"), _calls(words, "load_matrix_sync")
    if len(mma) != 1 or len(mma[0][1]) != 4:
        return
    at, args = mma[0]
    of = {frag: [(i, call) for i, call in loads if call[0] == frag] for frag in args[1:3]}
    late = [(frag, found[0][1]) for frag, found in of.items() if found and found[0][0] > at]
    if not late or not all(of.values()):
        return
    said = lambda call: f"load_matrix_sync({', '.join(call)})"  # noqa: E731
    frag, call = late[0]
    role = "a" if frag == args[1] else "b"
    first = "; ".join(said(found[0][1]) for found in of.values())
    yield (f"mma_sync comes before {said(call)} in the kernel: mma_sync({', '.join(args)}) read "
           f"{frag}, its {role}, while {frag} held nothing yet (what its registers held), so it "
           f"multiplied by {frag} before {frag} held {call[1]}; the load after it came too late",
           f"load both fragments first, then mma_sync: {first}; then "
           f"wmma::mma_sync({', '.join(args)})")


def _loads_swapped(kernels):
    """C = (A B)^T, as a store by columns gives it, but the kernel stores with mem_row_major and
    loads mma_sync's a fragment from its second pointer (B) and its b fragment from its first (A):
    a row_major fragment of B's memory is B^T, a col_major one of A's A^T, so C = B^T A^T. The text
    is the simulated twin's (the same source on a GPU)."""
    text = kernel_words(kernels)
    if not text:
        return
    words, body = text[2], text[3]
    head, words = words[:body], words[body:text[4]]
    params = [head[i - 1] for i in range(1, len(head)) if head[i] in (",", ")") and head[i - 1] != "("]
    calls = [i for i in range(len(words) - 6) if words[i + 1] == "("
             and words[i] in ("load_matrix_sync", "mma_sync", "store_matrix_sync")]
    loads = {words[i + 2]: words[i + 4] for i in calls if words[i] == "load_matrix_sync"}
    mma = [words[i + 2:i + 9:2] for i in calls if words[i] == "mma_sync"]
    stores = [words[i:] for i in calls if words[i] == "store_matrix_sync"]
    if len(params) < 2 or len(mma) != 1 or len(stores) != 1 or "mem_row_major" not in \
            stores[0][:stores[0].index(";") if ";" in stores[0] else None]:
        return
    fa, fb = mma[0][1], mma[0][2]
    if loads.get(fa) == params[1] and loads.get(fb) == params[0]:
        pa, pb = params[0], params[1]
        yield (f"C holds A B transposed, though it was stored with mem_row_major: {fa}, mma_sync's "
               f"a, was loaded from {pb} and {fb}, its b, from {pa}, so the tile computed B^T A^T "
               f"= (A B)^T (B's memory read row after row is B^T, A's read column after column "
               f"is A^T)", f"load each fragment from its own matrix: "
               f"load_matrix_sync({fa}, {pa}, 16); load_matrix_sync({fb}, {pb}, 16)")


def _stored_apart(product, out):
    """C stored with a leading dimension ld < 16: row r at r * ld, the rows overlapping, the
    elements past 15 ld + 15 never written, each one written holding one of its writers'."""
    rows, got = np.arange(16), out.got.astype(np.float64)
    for ld in range(1, 16):
        end = 15 * ld + 16
        if np.flatnonzero(out.unwritten).tolist() != list(range(end, 256)):
            continue
        writers = [(rows, i - rows * ld) for i in range(end)]
        if all(np.isclose(got[i], product[r[(c >= 0) & (c < 16)], c[(c >= 0) & (c < 16)]],
                          1e-4, 1e-3).any() for i, (r, c) in enumerate(writers)):
            yield (f"C was stored with a leading dimension of {ld}: its rows went {ld} elements "
                   f"apart, on top of each other, and C[{end}] to C[255] were never written",
                   "C's rows are 16 elements apart: store_matrix_sync(C, c, 16, wmma::mem_row_major)")


def _stored_wide(product, out):
    """C stored with a leading dimension ld > 16: row r at r * ld, the rows from 256 / ld on past
    C's end (into its guard), the elements between the rows never written, each one inside C
    holding its row's and column's product."""
    if not out.past.size:
        return
    written = set(np.flatnonzero(~out.unwritten).tolist()) | set(out.past.tolist())
    got, rows = out.got.astype(np.float64), np.arange(16)
    for ld in range(17, (GUARD + 256 - 16) // 15 + 1):
        places = rows[:, None] * ld + rows[None, :]
        inside = places < 256
        if written != set(places.ravel().tolist()) or not np.allclose(
                got[places[inside]], product[inside], 1e-4, 1e-3):
            continue
        last = -(-256 // ld) - 1  # the last row that starts inside C
        bytes_ = " (64 is 16 floats in bytes: the leading dimension counts elements)" \
            if ld == 64 else ""
        yield (f"C was stored with a leading dimension of {ld}: its rows went {ld} elements "
               f"apart, so rows 0 to {last} landed in C and rows {last + 1} to 15 past its end "
               f"(as far as C[{15 * ld + 15}]), and C's elements between the rows were never "
               f"written{bytes_}", "C's rows are 16 elements apart: "
               "store_matrix_sync(C, c, 16, wmma::mem_row_major)")
        return


def _lane_places():
    """For each lane, the places (16 r + c) of its 8 elements of a 16 x 16 float accumulator: lane
    4g + t holds rows g and g + 8, columns 2t, 2t + 1, 2t + 8 and 2t + 9 (notebook 13, section 2)."""
    g, t = np.arange(32) // 4, np.arange(32) % 4
    rows = np.stack([g, g + 8], axis=1)[:, :, None]
    cols = np.stack([2 * t, 2 * t + 1, 2 * t + 8, 2 * t + 9], axis=1)[:, None, :]
    return (16 * rows + cols).reshape(32, 8)


def _stored_per_lane(out):
    """C stored from a pointer of each lane's own, C + k * lane: each lane's elements k * lane
    further on, those of the last lanes past C."""
    written = set(np.flatnonzero(~out.unwritten.ravel()).tolist()) | set(out.past.tolist())
    for k in LANE_STEPS:
        if written == set((_lane_places() + k * np.arange(32)[:, None]).ravel().tolist()):
            step = "lane" if k == 1 else f"{k} * lane"
            yield (f"each lane stored its 8 elements of C from a pointer of its own, C + {step}: "
                   f"they landed {step} elements further on, {out.past.size} of them past C's "
                   "256", "store_matrix_sync is a warp-wide call: every lane passes the same "
                   "pointer, the tile's first element, and the call puts each lane's elements "
                   "where they go: store_matrix_sync(C, c, 16, wmma::mem_row_major)")
            return


SHAPES = {(32, 8): "16 rows of it past C's 256, and matrix_a's 32 rows of 16 read past A's 256",
          (8, 32): "its rows on top of each other, and matrix_b's 32 columns of 16 read past B's 256"}
"""The other fragment shapes of __half inputs (M, N): what their store and loads did here."""


def _stored_shape(out):
    """C written where an M x N accumulator stored with leading dimension 16 writes (row r's N
    elements at 16 r): fragments of shape M, N, 16 other than 16, 16, 16 (mma_sync takes one
    shape, so all three fragments have it)."""
    written = set(np.flatnonzero(~out.unwritten.ravel()).tolist()) | set(out.past.tolist())
    for (m, n), what in SHAPES.items():
        if written == {16 * r + c for r in range(m) for c in range(n)}:
            yield (f"C was stored as one {m} x {n} tile, {m} rows of {n} elements 16 apart "
                   f"({what}): the fragments were declared with the shape {m}, {n}, 16, matrix_a "
                   f"{m} x 16 and matrix_b 16 x {n}, not this exercise's 16 x 16 tiles",
                   "A, B and C are 16 x 16: declare the three fragments 16, 16, 16, as "
                   "wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa")


def _read_apart(run, name):
    """A read past A or B, run again with NaN after it: A's rows (B's columns) read ld > 16
    elements apart, load_matrix_sync given that ld. Where every row but the first lies past the
    end (ld >= 241), the NaN after it tells no ld from the next: the smallest, "or more"."""
    yield from _stored_shape(run.out)
    a, b = run.model
    flat = run.launch.args[("A", "B").index(name)].host().astype(np.float64)
    found = []
    for ld in range(17, (flat.size - 16) // 15 + 1):
        read = flat[np.arange(16)[:, None] * ld + np.arange(16)]
        product = read @ b if name == "A" else a @ read.T
        if np.allclose(run.out.got.reshape(16, 16), product, 1e-4, 1e-3, equal_nan=True):
            found.append(ld)
    if found:
        ld, what = found[0], ("rows" if name == "A" else "columns")
        more = " or more (the reads tell no more)" if len(found) > 1 else ""
        apart = f"at least {ld}" if more else f"{ld}"
        past = f"all but the first past the end of {name}'s 256" if more else \
            f"past the end of {name}'s 256"
        yield (f"{name} was loaded with a leading dimension of {ld}{more}: its {what} were read "
               f"{apart} elements apart, {past}",
               f"{name}'s {what} are 16 elements apart: "
               f"load_matrix_sync(f{name.lower()}, {name}, 16)")


def _refine(failure):
    """A wmma call that not every lane of the warp made (an if on threadIdx.x, a return)."""
    if getattr(failure.error, "rule", None) == "arguments differ":
        yield (f"{MATRIX_HINT}: load_matrix_sync(fa, A, 16) and load_matrix_sync(fb, B, 16)")
    if failure.kind == "warp mask":
        yield ("the wmma calls are warp-wide: all 32 lanes call load_matrix_sync, mma_sync and "
               "store_matrix_sync together, so no if on threadIdx.x and no return before them")


EXERCISE = KernelExercise(
    stub="exercises/wmma_tile.cu", kernel="wmma_tile", signature="const half *A, const half *B, float *C",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes,
    read_past=_read_apart, refine=_refine, simulated="reads the order of the wmma calls",
    crash_hint="the warp loads and stores one 16 x 16 tile: leading dimension 16 everywhere",
    success="C = A B on the tensor cores, B read column after column, for every pair of matrices tried",
    no_extern_c=True)

check_wmma_tile = EXERCISE.check_file          # (path="exercises/wmma_tile.cu")
check_wmma_tile_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same on a compiled
# kernel; on a GPU, simulated is the same source compiled by the simulator
