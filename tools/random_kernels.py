"""Random CUDA kernels for testing the simulator, each module of them made from a seed: the text
(``module_source``), one launch's output words (``launch``), where two launches' words first
differ. tools/fuzz_loops.py runs them as the simulator's loops and as its fibers;
tools/fuzz_gpu.py on a GPU and on the simulator.

A kernel's text mixes what the simulator's rewriting must carry across a barrier: variables
declared in nested scopes (some shadowing an outer one), constants, arrays, pointers to variables
and to the parameter, loop counters, a parameter that threads change, branches and ``for`` and
``while`` loops with barriers inside (uniform ones) and without (per thread), ``break``,
``continue``, early returns, shared memory read after a barrier, float arithmetic that g++ may
fuse, a ``__device__`` function that reads the thread's indices, and now and then a barrier only
some threads reach or a write to an address nothing maps (``module_source`` says which kernels
have one of these two errors). Every value is unsigned or float, so that no result is undefined
in C++; a float's bits are read with ``float_bits``, a NaN given a GPU's bits (the simulator does
not promise a NaN's). Each thread writes SLOTS words of its own, its last variables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

SLOTS = 6                                     # values each thread writes out
SHAPES = [(64, 1, 1), (32, 3, 1), (128, 1, 1), (12, 2, 3)]   # at most 128 threads (shared array)
GRID, N_IN = 3, 97
BITS = ("// A float's bits, a NaN's as a GPU makes them (x86 makes others: what a NaN holds is not\n"
        "// promised; tools/fuzz_gpu.py compares the words with a GPU's)\n"
        "#define float_bits(f) ((f) != (f) ? 0x7fffffffu : __float_as_uint(f))")
DEVICE = ("__device__ unsigned mix(unsigned v)\n"
          "{\n    return v * 31u + threadIdx.x + 7u * threadIdx.y + 5u * threadIdx.z + 3u * blockIdx.x;"
          "\n}")


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


INPUTS = np.random.default_rng(7).integers(0, 1 << 20, N_IN, dtype=np.uint32)


def launch(function, shape, gpuarray, inputs=INPUTS) -> np.ndarray:
    """The output words of one launch of a kernel on ``shape``, GRID blocks (``gpuarray``: the
    simulator's or PyCUDA's)."""
    out = gpuarray.to_gpu(np.full(GRID * int(np.prod(shape)) * (SLOTS + 1), 0xDEADBEEF, np.uint32))
    function(gpuarray.to_gpu(inputs), out, np.uint32(inputs.size), np.uint32(5), block=shape,
             grid=(GRID, 1))
    return out.get()


def kernel_text(source, name) -> str:
    """Kernel ``name``'s text in its module's ``source``."""
    return source[source.index(f"void {name}("):].split("\n}\n")[0] + "\n}"


def first_difference(got, want):
    """(where two launches' words first differ, as "o[slot] of thread t (of the grid)", the
    index)."""
    at = int(np.flatnonzero(got != want)[0])
    thread, slot = divmod(at, SLOTS + 1)
    return f"o[{slot}] of thread {thread} (of the grid)", at
