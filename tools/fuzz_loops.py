"""Random kernels run as the simulator's loops over their threads and as its fibers, compared:
outputs bit for bit, errors by their class, kind, thread and block (a fault's line as well, but
g++'s line tables may place it on the statement before in one build: counted, see check_seed).

    python tools/fuzz_loops.py [--seeds 0:20] [--kernels 12] [--plain] [--show]

Kernels with barriers run as loops once ``helpers/sim/compile/split.py`` has rewritten them, and
as fibers with ``-DSIM_NO_SPLIT``. Kernels without barriers (``--plain``) run as the plain loop
the compiler may vectorise (``include/sim_launch.h``), and as fibers in a module that also holds a
kernel with a barrier, built with ``-DSIM_NO_SPLIT``.

Each seed makes one module of ``--kernels`` random kernels, built both ways and launched on a few
block shapes. A kernel's text mixes what the rewriting must carry across a barrier: variables
declared in nested scopes (some shadowing an outer one), constants, arrays, pointers to variables
and to the parameter, loop counters, a parameter that threads change, branches and ``for`` and
``while`` loops with barriers inside (uniform ones) and without (per thread), ``break``,
``continue``, early returns, shared memory read after a barrier, float arithmetic that g++ may
fuse, a ``__device__`` function that reads the thread's indices, and now and then a barrier only
some threads reach or a write to an address nothing maps. Every value is unsigned or float, so that
no result is undefined in C++; a float's bits are read with ``float_bits``, a NaN given a GPU's
bits (the simulator does not promise a NaN's). It prints how many kernels ran as loops (one left
to the fibers compares nothing) and exits with status 1 at the first disagreement, printing the
kernel and both results. ``tests/tools/test_fuzz_loops.py`` runs a few seeds each way.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # the repository: helpers

from helpers.sim import driver as drv, gpuarray  # noqa: E402
from helpers.sim.compiler import SourceModule  # noqa: E402
from helpers.sim.settings import settings  # noqa: E402

FIBERS = ["-DSIM_NO_SPLIT"]
SLOTS = 6                                     # values each thread writes out
SHAPES = [(64, 1, 1), (32, 3, 1), (128, 1, 1), (12, 2, 3)]   # at most 128 threads (shared array)
GRID, N_IN = 3, 97
BITS = ("// A float's bits, a NaN's as a GPU makes them (x86 makes others: what a NaN holds is not\n"
        "// promised; tools/fuzz_gpu.py compares the words with a GPU's)\n"
        "#define float_bits(f) ((f) != (f) ? 0x7fffffffu : __float_as_uint(f))")
DEVICE = ("__device__ unsigned mix(unsigned v)\n"
          "{\n    return v * 31u + threadIdx.x + 7u * threadIdx.y + 5u * threadIdx.z + 3u * blockIdx.x;"
          "\n}")
FIBER_KERNEL = "\n\n__global__ void fibers_all() { __syncthreads(); }\n"
"""With -DSIM_NO_SPLIT, a kernel with a barrier makes the module's kernels all run as fibers."""


@dataclass
class Text:
    """One kernel's text as it is generated: its lines, the variables each open scope declares
    (by kind: u unsigned, c const unsigned, f float, a array, q pointer) and the loops the code
    being written is in (whether every thread of the block runs it alike is passed along)."""
    rng: np.random.Generator
    lines: list = field(default_factory=list)
    scopes: list = field(default_factory=lambda: [[]])
    count: int = 0
    loops: list = field(default_factory=list)   # (counter, uniform) of the loops we are in
    barriers: bool = True                        # False: a kernel without any
    calls: bool = True                           # whether the module defines mix()
    loops_allowed: bool = True                   # False: no loop (the vectorised plain loop)
    hazard: bool = False                         # one of the two errors made (a GPU: undefined)

    def visible(self, kind):
        seen = {}
        for scope in self.scopes:
            for name, k in scope:
                seen[name] = k
        return [n for n, k in seen.items() if k == kind]

    def chance(self, p):
        return self.rng.random() < p

    def pick(self, options):
        return options[int(self.rng.integers(len(options)))]


def unsigned_expr(g: Text, depth=0):
    atoms = ["t", "blockIdx.x", f"{int(g.rng.integers(0, 50))}u", "n"]
    atoms += (g.visible("u") + g.visible("c")) * 3 + [f"*{q}" for q in g.visible("q")]
    atoms += [f"{a}[{int(g.rng.integers(4))}]" for a in g.visible("a")]
    atoms += [c for c, _ in g.loops]
    if depth < 2 and g.chance(0.5):
        kind = g.pick(["op", "op", "in", "shared", "float", "call"])
        if kind == "call" and g.calls:   # a __device__ function that reads the thread's indices itself
            return f"mix({unsigned_expr(g, depth + 1)})"
        if kind == "in":
            return f"in[({unsigned_expr(g, depth + 1)}) % n]"
        if kind == "shared":
            return f"s[({unsigned_expr(g, depth + 1)}) % threads]"
        if kind == "float" and g.visible("f"):
            return f"float_bits({g.pick(g.visible('f'))})"
        op = g.pick(["+", "*", "^", "-", "|"])
        return f"({unsigned_expr(g, depth + 1)} {op} {unsigned_expr(g, depth + 1)})"
    return g.pick(atoms)


def float_expr(g: Text, depth=0):
    """A float expression in which no sum has two products: a * b + c * d is fused at one product
    or the other as the code around it falls (nvcc's choice follows no rule either: RESULTS.md),
    so the two builds could differ by an ulp there with nothing wrong. Hence no bare product: each
    one is the first term of a fused multiply-add."""
    atoms = [f"{g.rng.integers(1, 9) / 4:.2f}f", f"(float)({unsigned_expr(g, 2)} & 255u)"]
    atoms += g.visible("f") * 3
    if depth < 2 and g.chance(0.6):
        a, b = float_expr(g, depth + 1), float_expr(g, depth + 1)
        return g.pick([f"({a} * {b} + {float_expr(g, depth + 1)})", f"({a} - {b})"])
    return g.pick(atoms)


def condition(g: Text, uniform):
    if uniform:
        loop = [f"{c} == 1u" for c, u in g.loops if u]
        return g.pick(["blockIdx.x % 2u == 0u", "n > 50u", "blockIdx.x == 1u"] + loop)
    return g.pick(["t % 3u == 0u", f"({unsigned_expr(g)} & 1u)", "t < 17u", "t % 5u == 2u"])


def statements(g: Text, depth, uniform, count):
    for _ in range(count):
        statement(g, depth, uniform)


def statement(g: Text, depth, uniform):
    choices = ["declare", "declare", "assign", "assign", "shared", "float"]
    if uniform and g.barriers:
        choices += ["barrier", "barrier"]
    if depth < 3:
        choices += ["if", "block", "array"] + ["loop", "while"] * g.loops_allowed
    if [v for v in g.visible("u") if v != "t"]:
        choices += ["pointer"]
    if g.loops:
        choices += ["jump"]
    choices += ["return"] if g.chance(0.1) else []
    choices += ["divergent barrier"] if not uniform and g.barriers and g.chance(0.08) else []
    choices += ["fault"] if g.chance(0.01) else []
    choice = g.pick(choices)
    g.hazard |= choice in ("divergent barrier", "fault")
    MAKERS[choice](g, "    " * (depth + 1), depth, uniform)


def _declare(g: Text, pad, depth, uniform):
    """A new unsigned variable: now and then const, or named as one of an outer scope."""
    here = {n for n, _ in g.scopes[-1]}
    outer = [n for scope in g.scopes[1:-1] for n, k in scope if k == "u" and n not in here]
    value = unsigned_expr(g)
    name = g.pick(outer) if outer and g.chance(0.3) else fresh(g)   # shadows an outer one
    if re.search(rf"\b{name}\b", value):    # (not read in its own initializer)
        name = fresh(g)
    const = "const " if g.chance(0.15) else ""
    g.lines.append(f"{pad}{const}unsigned {name} = {value};")
    g.scopes[-1].append((name, "c" if const else "u"))


def _float(g: Text, pad, depth, uniform):
    name = fresh(g)
    g.lines.append(f"{pad}float {name} = {float_expr(g)};")
    g.scopes[-1].append((name, "f"))


def _pointer(g: Text, pad, depth, uniform):
    """A pointer to a variable or to the parameter, written through."""
    name, target = fresh(g, "q"), g.pick([v for v in g.visible("u") if v != "t"])
    g.lines.append(f"{pad}unsigned *{name} = &{target};")
    g.lines.append(f"{pad}*{name} += {unsigned_expr(g)};")
    g.scopes[-1].append((name, "q"))


def _array(g: Text, pad, depth, uniform):
    name = fresh(g, "a")
    if g.loops_allowed:
        g.lines.append(f"{pad}unsigned {name}[4];")
        g.lines.append(f"{pad}for (unsigned j = 0; j < 4u; j++) {name}[j] = {unsigned_expr(g)} + j;")
    else:   # (with values: a kernel without barriers is not rewritten)
        g.lines.append(f"{pad}unsigned {name}[4] = {{{', '.join(unsigned_expr(g) for _ in range(4))}}};")
    g.scopes[-1].append((name, "a"))


def _assign(g: Text, pad, depth, uniform):
    ints = [v for v in g.visible("u") if v != "t"]    # t places the thread's output
    ints += [f"*{q}" for q in g.visible("q")]
    floats, ints = g.visible("f"), ints + [f"{a}[{int(g.rng.integers(4))}]"
                                           for a in g.visible("a")]
    if floats and g.chance(0.3):
        g.lines.append(f"{pad}{g.pick(floats)} {g.pick(['=', '+='])} {float_expr(g)};")
    elif ints:
        g.lines.append(f"{pad}{g.pick(ints)} {g.pick(['=', '+=', '^='])} {unsigned_expr(g)};")


def _shared(g: Text, pad, depth, uniform):
    index = "t" if g.chance(0.7) else f"({unsigned_expr(g)}) % threads"
    g.lines.append(f"{pad}s[{index}] = {unsigned_expr(g)};")


def _barrier(g: Text, pad, depth, uniform):
    g.lines.append(f"{pad}__syncthreads();")


def _return(g: Text, pad, depth, uniform):
    g.lines.append(f"{pad}if (t % 7u == {int(g.rng.integers(7))}u) return;")


def _fault(g: Text, pad, depth, uniform):
    """A write to a low address that nothing maps, by one thread of one block: the error names
    them both. (Not an address past an allocation: how far away the next one lies depends on
    where the allocator put them, and a write into another array is no fault.)"""
    g.lines.append(f"{pad}if (t == {int(g.rng.integers(64))}u && blockIdx.x == "
                   f"{int(g.rng.integers(GRID))}u) ((unsigned *)(unsigned long)(n * 16u))[t] = p;")


def _jump(g: Text, pad, depth, uniform):
    counter, loop_uniform = g.loops[-1]
    test = f"{counter} == 1u" if loop_uniform or g.chance(0.5) else condition(g, False)
    if loop_uniform and not uniform:
        return    # a per-thread jump out of a loop with barriers: threads apart at its barrier
    g.lines.append(f"{pad}if ({test}) {g.pick(['break', 'continue'])};")


def _if(g: Text, pad, depth, uniform):
    branch_uniform = uniform and g.chance(0.5)
    g.lines.append(f"{pad}if ({condition(g, branch_uniform)}) {{")
    scoped(g, depth + 1, branch_uniform)
    if g.chance(0.5):
        g.lines.append(f"{pad}}} else {{")
        scoped(g, depth + 1, branch_uniform)
    g.lines.append(f"{pad}}}")


def _counted(g: Text, uniform, prefix, per_thread):
    """(uniform, counter, count) of a new loop: a constant count (uniform), or ``per_thread``."""
    loop_uniform = uniform and g.chance(0.6)
    count = f"{int(g.rng.integers(1, 4))}u" if loop_uniform else per_thread
    return loop_uniform, fresh(g, prefix), count


def _loop(g: Text, pad, depth, uniform):
    loop_uniform, counter, bound = _counted(g, uniform, "i", "(t % 3u)")
    g.lines.append(f"{pad}for (unsigned {counter} = 0; {counter} < {bound}; {counter}++) {{")
    _loop_body(g, pad, depth, counter, loop_uniform)


def _loop_body(g: Text, pad, depth, counter, uniform):
    g.loops.append((counter, uniform))
    scoped(g, depth + 1, uniform)
    g.loops.pop()
    g.lines.append(f"{pad}}}")


def _while(g: Text, pad, depth, uniform):
    """A count down: from a constant (uniform) or from the thread's index."""
    loop_uniform, counter, start = _counted(g, uniform, "w", "(t % 4u)")
    g.lines.append(f"{pad}unsigned {counter} = {start};")
    g.lines.append(f"{pad}while ({counter} > 0u) {{")
    g.lines.append(f"{pad}    {counter}--;")
    _loop_body(g, pad, depth, counter, loop_uniform)


def _block(g: Text, pad, depth, uniform):
    g.lines.append(f"{pad}{{")
    scoped(g, depth + 1, uniform)
    g.lines.append(f"{pad}}}")


MAKERS = {"declare": _declare, "float": _float, "pointer": _pointer, "array": _array,
          "assign": _assign, "shared": _shared, "barrier": _barrier, "divergent barrier": _barrier,
          "return": _return, "fault": _fault, "jump": _jump, "if": _if, "loop": _loop,
          "while": _while, "block": _block}


def scoped(g: Text, depth, uniform):
    g.scopes.append([])
    statements(g, depth, uniform, int(g.rng.integers(1, 5)))
    g.scopes.pop()


def fresh(g: Text, prefix="v"):
    g.count += 1
    return f"{prefix}{g.count}"


def kernel(rng, name, barriers=True, calls=True, loops=True):
    """(the text of one random kernel ``name(in, out, n, p)``, whether it has one of the two
    errors): with barriers or without any, calling mix() or not, with loops or without any."""
    g = Text(rng, barriers=barriers, calls=calls, loops_allowed=loops)
    g.scopes[0] += [("t", "u"), ("p", "u")]
    statements(g, 0, True, int(rng.integers(4, 10)))
    floats = g.visible("f")
    outs = [v for v in g.visible("u") + g.visible("c") + floats if v not in ("t", "p")][-SLOTS:]
    return "\n".join([
        f"__global__ void {name}(const unsigned *in, unsigned *out, unsigned n, unsigned p) {{",
        "    __shared__ unsigned s[128];",
        "    unsigned threads = blockDim.x * blockDim.y * blockDim.z;",
        "    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);",
        "    s[t] = in[t % n] + t;",
        "    __syncthreads();" if barriers else "",
        *g.lines,
        f"    unsigned *o = out + {SLOTS + 1} * (blockIdx.x * threads + t);",
        "    o[0] = p;",
        *[f"    o[{j + 1}] = {f'float_bits({v})' if v in floats else v};"
          for j, v in enumerate(outs)],
        "}"]), g.hazard


def module_source(seed, kernels, plain=False):
    """(the kernels' names, the module's text, the names of the kernels with one of the two
    errors) of one seed: kernels with barriers, or (plain)
    without any, with mix() on every other seed (a plain module with __device__ functions keeps
    threadIdx.x in a register of its own, one without reads the indices from its variables), and
    every other kernel without loops (one the compiler may vectorise across threads)."""
    rng = np.random.default_rng(seed)
    names = [f"k{seed}_{i}" for i in range(kernels)]
    calls = not plain or seed % 2 == 1
    made = [kernel(rng, name, not plain, calls, not plain or i % 2 == 1)
            for i, name in enumerate(names)]
    return (names, "\n\n".join([BITS] + [DEVICE] * calls + [text for text, _ in made]),
            {name for name, (_, hazard) in zip(names, made) if hazard})


def run(f, shape):
    """(output words, None, None) of one launch, or (None, the error's fields, its line)."""
    threads = shape[0] * shape[1] * shape[2]
    inputs = gpuarray.to_gpu(np.random.default_rng(7).integers(0, 1 << 20, N_IN, dtype=np.uint32))
    out = gpuarray.to_gpu(np.full(GRID * threads * (SLOTS + 1), 0xDEADBEEF, np.uint32))
    try:   # on one worker: with several, which block's error comes first varies between runs
        with settings.changed(workers=1):
            f(inputs, out, np.uint32(N_IN), np.uint32(5), block=shape, grid=(GRID, 1))
        drv.Context.synchronize()
    except drv.LaunchError as e:
        return None, (type(e).__name__, e.kind, e.thread, e.block), e.line  # (addresses differ)
    return out.get(), None, None


def check_seed(seed, kernels, show=False, plain=False):
    """Build seed's module both ways and compare every kernel on every shape: (kernels run as
    loops, kernels, the first disagreement's report or None, faults placed on different lines).
    A fault's line is read from g++'s line tables, which at -O2 may give an instruction the line
    of a statement next to its own (a store sunk into the branch of the statement before): the
    two builds' code differs, so their lines may too, and that is counted, not a disagreement. Kernels with barriers: rewritten
    (split.py) against -DSIM_NO_SPLIT. Plain kernels: as they are built, against the same module
    with a kernel that waits at a barrier, with -DSIM_NO_SPLIT (every kernel on fibers)."""
    names, source, _ = module_source(seed, kernels, plain)
    if show:
        print(source)
    loops = SourceModule(source)
    fibers = SourceModule(source + FIBER_KERNEL if plain else source, options=FIBERS)
    assert all(fibers.module.kernels[name].fibers for name in names)
    as_loops, lines_apart = sum(not loops.module.kernels[name].fibers for name in names), 0
    for name in names:
        text = source[source.index(f"void {name}("):].split("\n}\n")[0] + "\n}"
        for shape in SHAPES:
            (loops_out, loops_error, loops_line), (fibers_out, fibers_error, fibers_line) = (
                run(m.get_function(name), shape) for m in (loops, fibers))
            if loops_error or fibers_error:
                if loops_error != fibers_error:
                    return as_loops, kernels, _report(seed, name, shape, text, loops_error,
                                                       fibers_error), lines_apart
                lines_apart += loops_line != fibers_line
            elif not np.array_equal(loops_out, fibers_out):
                at = int(np.flatnonzero(loops_out != fibers_out)[0])
                thread, slot = divmod(at, SLOTS + 1)
                return as_loops, kernels, _report(
                    seed, name, shape, text, f"o[{slot}] of thread {thread} (of the grid) is "
                    f"{loops_out[at]:#x}", f"{fibers_out[at]:#x}"), lines_apart
    return as_loops, kernels, None, lines_apart


def _report(seed, name, shape, text, loops, fibers):
    return f"seed {seed}, kernel {name}, block {shape}:\n{text}\nas loops: {loops}\nas fibers: {fibers}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0:20", help="first:last (last not included)")
    parser.add_argument("--kernels", type=int, default=12, help="random kernels a module")
    parser.add_argument("--plain", action="store_true",
                        help="kernels without barriers: the plain loops against fibers")
    parser.add_argument("--show", action="store_true", help="print each module's source")
    args = parser.parse_args(argv)
    first, last = map(int, args.seeds.split(":"))
    total = as_loops = lines_apart = 0
    for seed in range(first, last):
        done, made, disagreement, apart = check_seed(seed, args.kernels, args.show, args.plain)
        as_loops, total, lines_apart = as_loops + done, total + made, lines_apart + apart
        if disagreement:
            print(disagreement)
            return 1
    kind = "without barriers" if args.plain else "with barriers"
    print(f"{total} random kernels {kind}, {as_loops} of them run as loops, on {len(SHAPES)} block "
          f"shapes each: loops and fibers agree ({lines_apart} faults placed on other lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
