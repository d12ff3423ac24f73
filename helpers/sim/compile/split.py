"""Kernels with barriers as loops over their threads: the learner's text rewritten so that a block
runs without fibers (include/sim_split.h says how it runs).

A block of 256 threads with a barrier a step switched fibers 256 times a barrier: the 1M-element
reduction of bench/simulator.py spent most of its time there. Rewritten, each stretch of code
between two barriers is a loop over the block's threads, in the fibers' order, so the results are
the same. Only the plain build is rewritten; the race check, the init check and the trace build
the kernel as written.

A kernel is rewritten when its text can be read with certainty, else left to the fibers:
- its only thread-waiting calls are statements ``__syncthreads();`` of its own body (not in an
  expression, not inside a ``switch``): it calls no function of the source that waits, and
  nothing of cooperative groups, mma.h or the pipeline primitives;
- no ``goto``, label, ``asm``, ``try``, lambda or template; ``return;`` only as a statement;
- a parameter that is assigned or has its address taken gets a copy for each thread (a block's
  threads share the parameters);
- the preprocessed kernel has as many barriers and returns as its text (no macro hides one);
- each local variable in scope at a barrier is declared ``type name = value;`` (or an array
  without a value): it moves to the thread's storage, its declaration becomes the assignment.
A rewritten module that does not compile is built again without the rewriting (builder.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .source import _USES_FIBERS

VERSION = "5"  # part of a module's name in the cache: a change of the rewriting rebuilds it

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<pp>(?<![^\n])[ \t]*\#(?:\\\n|[^\n])*)
  | (?P<string>(?:u8|[uUL])?R"|(?:u8|[uUL])?"(?:\\.|[^"\\\n])*"|(?:u8|[uUL])?'(?:\\.|[^'\\\n])*')
  | (?P<number>\.?\d(?:[eEpP][+-]|[\w.'])*)
  | (?P<word>[A-Za-z_]\w*)
  | (?P<op>::|->\*?|\.\*|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!=<>]=?
          |[{}()\[\];,?:.~\#@$\\])
""", re.S | re.X)

# Words that only a declaration starts with, and the types every kernel may name.
_SPECIFIERS = {"const", "volatile", "unsigned", "signed", "short", "long", "int", "char", "float",
               "double", "bool", "void", "auto", "register", "static", "constexpr", "extern",
               "thread_local", "__shared__", "__constant__", "__device__", "inline"}
_KNOWN_TYPE = re.compile(r"(u?(char|short|int|long|longlong)[1-4]|float[1-4]|double[1-4]|"
                         r"u?int(8|16|32|64)_t|u?intptr_t|size_t|ptrdiff_t|dim3|uint3|half2?|"
                         r"__half2?|__nv_bfloat162?|uint|ushort|uchar|ulong)$")
_POINTER_OPS = {"*", "&", "&&", "const", "volatile", "__restrict__", "__restrict"}
# What reaches a barrier or a warp function through the prelude's CUDA headers (cooperative
# groups, mma.h, the pipeline primitives), whose waits are not in the learner's text: the groups
# and fragments, the functions that make or take them, and their methods.
_CUDA_API = re.compile(
    r"\b(cooperative_groups|nvcuda|wmma|__pipeline_\w+|memcpy_async|wait_prior|barrier_wait|"
    r"this_thread_block|this_grid|this_multi_grid|this_cluster|tiled_partition|coalesced_threads|"
    r"labeled_partition|binary_partition|thread_block|thread_block_tile|thread_group|"
    r"coalesced_group|grid_group|multi_grid_group|cluster_group|\w+_sync)\b"
    r"|\.\s*(sync|wait|shfl\w*|any|all|ballot|match_\w+)\s*\(")
_REFUSED = {"goto", "asm", "__asm__", "__asm", "try", "throw", "template", "co_await",
            "co_yield", "co_return", "setjmp", "longjmp", "__syncwarp", "__nanosleep"}
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"}


class _Refused(Exception):
    """The kernel is left to the fibers."""


@dataclass
class _Token:
    kind: str
    text: str
    start: int
    end: int


@dataclass
class _Declaration:
    """A local declaration: where it is, what it declares, and whether it must move."""
    start: int                  # token index of its first token
    end: int                    # token index of its ';' (or of the for-header's ';')
    # each name it declares: (name, its member's text, its value's token range or None, the
    # index of its declarator's first token)
    names: list = field(default_factory=list)
    specifiers: tuple = (0, 0)  # token range of its specifiers
    movable: bool = True        # its form is one split.py can move
    automatic: bool = True      # not static, __shared__ or extern
    constant: bool = False      # constexpr: made static where it is in scope at a barrier
    lifted: bool = False        # in scope at a barrier
    scope_end: int = -1         # token index where its scope ends


def _tokens(text, start, end):
    out = []
    pos = start
    while pos < end:
        m = _TOKEN.match(text, pos, end)
        if m is None:
            raise _Refused(f"cannot read {text[pos:pos + 10]!r}")
        kind = m.lastgroup
        if kind == "string" and re.fullmatch(r'(u8|[uUL])?R"', m.group()):
            raise _Refused("raw string")
        if kind not in ("space", "comment"):
            out.append(_Token(kind, m.group(), m.start(), m.end()))
        pos = m.end()
    return out


def _closing(tokens, i):
    """Index of the bracket that closes tokens[i]."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    depth = 0
    for j in range(i, len(tokens)):
        t = tokens[j].text
        if t in pairs:
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return j
    raise _Refused("unbalanced brackets")


class _Kernel:
    """One kernel's body, read statement by statement: its barriers, returns and declarations."""

    def __init__(self, tokens, first, last, params):
        self.t, self.params = tokens, params
        self.barriers, self.returns, self.declarations = [], [], []
        self.scopes = [[]]  # the declarations in scope, innermost last
        self.switches = 0
        self._statements(first, last)
        self._close_scope(last)

    def _close_scope(self, end):
        for d in self.scopes.pop():
            d.scope_end = end

    # ---- statements ----
    def _statements(self, i, end):
        while i < end:
            i = self._statement(i)

    def _statement(self, i):
        t = self.t
        word = t[i].text
        if t[i].kind == "pp" or word == ";":
            return i + 1
        if word == "{":
            close = _closing(t, i)
            self.scopes.append([])
            self._statements(i + 1, close)
            self._close_scope(close)
            return close + 1
        if word in ("if", "while", "switch"):
            close = self._condition(i + 1)
            self.switches += word == "switch"
            i = self._statement(close + 1)
            self.switches -= word == "switch"
            if word == "if" and i < len(t) and t[i].text == "else":
                i = self._statement(i + 1)
            return i
        if word == "for":
            return self._for(i)
        if word == "do":
            i = self._statement(i + 1)
            if t[i].text != "while":
                raise _Refused("do without while")
            return self._condition(i + 1) + 2
        if word in ("case", "default"):
            while t[i].text != ":":
                i += 1
            return i + 1
        if word == "return":
            if t[i + 1].text != ";":
                raise _Refused("return with a value")
            self.returns.append(i)
            return i + 2
        if word == "__syncthreads":
            if [x.text for x in t[i + 1:i + 4]] != ["(", ")", ";"] or self.switches:
                raise _Refused("a barrier that is not a statement of its own")
            self.barriers.append(i)
            for scope in self.scopes:
                for d in scope:
                    d.lifted = True
            return i + 4
        if t[i].kind == "word" and t[i + 1].text == ":" and word not in ("public", "private"):
            raise _Refused("a label")
        end = self._simple_end(i)
        declaration = self._declaration(i, end)
        if declaration is not None:
            self.scopes[-1].append(declaration)
            self.declarations.append(declaration)
        return end + 1

    def _condition(self, i):
        if self.t[i].text != "(":
            raise _Refused("a condition without parentheses")
        close = _closing(self.t, i)
        self._no_barrier(i, close)
        return close

    def _for(self, i):
        t = self.t
        close = self._condition(i + 1)
        header_end = next((j for j in range(i + 2, close) if t[j].text == ";"), None)
        self.scopes.append([])
        if header_end is None:  # for (x : range)
            self.scopes[-1].append(_Declaration(i + 2, close, movable=False))
        else:
            declaration = self._declaration(i + 2, header_end)
            if declaration is not None:
                self.scopes[-1].append(declaration)
                self.declarations.append(declaration)
        i = self._statement(close + 1)
        self._close_scope(i)
        return i

    def _simple_end(self, i):
        """Index of the ';' that ends the statement starting at i; no barrier within."""
        depth, j = 0, i
        while True:
            text = self.t[j].text
            if text in ("(", "[", "{"):
                depth += 1
            elif text in (")", "]", "}"):
                depth -= 1
            elif text == ";" and depth == 0:
                break
            elif text == "__syncthreads":
                raise _Refused("a barrier inside an expression")
            j += 1
        return j

    def _no_barrier(self, i, end):
        if any(x.text == "__syncthreads" for x in self.t[i:end]):
            raise _Refused("a barrier inside a condition")

    # ---- declarations ----
    def _declaration(self, i, end):
        """The declaration tokens[i:end] make, or None for another statement."""
        t = self.t
        j = i
        while j < end and (t[j].text in _SPECIFIERS or _KNOWN_TYPE.match(t[j].text)):
            j += 1
        if j == i:  # `T x`, `T *x`: T a type of the learner's
            if t[i].kind != "word" or i + 1 >= end:
                return None
            if t[i + 1].text in ("::", "<"):  # ns::T x, T<int> x, or an expression: unreadable
                return _Declaration(i, end, movable=False)
            k = i + 1
            while k < end and t[k].text in ("*", "&"):
                k += 1
            if not (k < end and t[k].kind == "word"):
                return None
            j = i + 1
        words = [x.text for x in t[i:j]]
        d = _Declaration(i, end, specifiers=(i, j))
        d.automatic = not set(words) & {"static", "__shared__", "extern", "thread_local",
                                        "__constant__"}
        d.constant = "constexpr" in words
        if {"auto", "register"} & set(words):
            d.movable = False
        base = [w for w in words if w not in ("const", "constexpr")]
        while j < end:
            first, ops = j, []
            while j < end and t[j].text in _POINTER_OPS:
                ops.append(t[j].text)
                j += 1
            if j >= end or t[j].kind != "word":
                d.movable = False
                return d
            name, j = t[j].text, j + 1
            dims_start = j
            while j < end and t[j].text == "[":
                j = _closing(t, j) + 1
            dims = " ".join(x.text for x in t[dims_start:j])
            init = None
            if j < end and t[j].text == "=":
                k, depth = j + 1, 0
                while k < end and not (depth == 0 and t[k].text == ","):
                    depth += (t[k].text in ("(", "[", "{")) - (t[k].text in (")", "]", "}"))
                    k += 1
                init, j = (j + 1, k), k
            elif j < end and t[j].text != ",":
                d.movable = False  # direct initialisation, a function's declaration, ...
                return d
            if "&" in ops or "&&" in ops or (dims and init) or (not dims and init is None):
                d.movable = False  # a reference, an array with values, a scalar without one
            while ops and ops[-1] in ("const", "volatile"):
                ops.pop()  # the variable itself is assigned from now on: its own const goes
            member = " ".join([*(words if ops else base), *ops, name, *([dims] if dims else [])])
            d.names.append((name, member, init, first))
            j += 1  # past the comma
        if any(init is None for _, _, init, _ in d.names) and len(d.names) > 1:
            d.movable = False  # `float a[4], b = 1;`: one at a time
        return d


@dataclass
class Plan:
    """The rewritten text, and the kernels it rewrote (their entries run them once a block)."""
    body: str
    kernels: frozenset


def plan(body, user_code):
    """The learner's text (source.user_source's) with every kernel that can be rewritten
    rewritten; ``user_code`` is the same text preprocessed (builder._preprocess)."""
    if not _USES_FIBERS.search(user_code):
        return Plan(body, frozenset())
    pre_kernels = _kernel_bodies(user_code, "__sim_global__")
    waiting = _waiting_functions(user_code, set(pre_kernels))
    if waiting is None:
        return Plan(body, frozenset())
    try:
        tokens = _tokens(body, 0, len(body))
    except _Refused:
        return Plan(body, frozenset())
    calls_waiting = re.compile(rf"\b({'|'.join(map(re.escape, waiting))})\b") if waiting else None
    edits, done = [], set()
    for name, where in _definitions(tokens).items():
        pre = pre_kernels.get(name)
        if where is None or pre is None:
            continue
        pre_body = user_code[pre[0]:pre[1]]
        if calls_waiting and calls_waiting.search(pre_body):
            continue  # it calls a __device__ function that waits: that needs fibers
        try:
            edits += _rewrite(body, tokens, *where, pre_body)
        except (_Refused, IndexError):
            continue
        done.add(name)
    for start, end, text in sorted(edits, reverse=True):
        body = body[:start] + text + body[end:]
    return Plan(body, frozenset(done))


def _waiting_functions(code, kernels):
    """The names of the preprocessed code's other functions that wait (call a barrier or warp
    function, or a function that does); None where a wait is outside every function found."""
    code = re.sub(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'', '""', code)
    bodies, i = {}, 0
    while (i := code.find("{", i)) >= 0:
        head = code[max(0, i - 4096):i].rstrip()  # a function's head: its parameters end it
        head = re.sub(r"\b(const|noexcept|override)\s*$", "", head).rstrip()
        end = _matching(code, i, "{", "}")
        if head.endswith(")") and end > 0:
            start = _matching_back(head, len(head) - 1)
            name = re.search(r"([A-Za-z_]\w*)\s*$", head[:start]) if start >= 0 else None
            if name:
                bodies.setdefault(name.group(1), []).append((i, end))
                i = end
                continue
        i += 1
    outside = _without_ranges(code, [r for rs in bodies.values() for r in rs])
    if _USES_FIBERS.search(outside):
        return None
    text = {n: "".join(code[a:b] for a, b in rs) for n, rs in bodies.items() if n not in kernels}
    waiting = {n for n, t in text.items() if _USES_FIBERS.search(t) or _CUDA_API.search(t)}
    while True:
        more = {n for n, t in text.items() if n not in waiting
                and any(re.search(rf"\b{re.escape(w)}\b", t) for w in waiting)}
        if not more:
            return waiting
        waiting |= more


def _matching(code, i, opening, closing):
    """The index after the bracket that closes code[i], or -1."""
    depth = 0
    for j in range(i, len(code)):
        depth += (code[j] == opening) - (code[j] == closing)
        if depth == 0:
            return j + 1
    return -1


def _matching_back(code, i):
    """The index of the '(' that code[i], a ')', closes; -1 if none."""
    depth = 0
    for j in range(i, -1, -1):
        depth += (code[j] == ")") - (code[j] == "(")
        if depth == 0:
            return j
    return -1


def _kernel_bodies(code, keyword):
    """{kernel: (start, end) of its body's text, or None when defined more than once}."""
    found = {}
    for m in re.finditer(rf"{keyword}[^;{{(]*?\b([A-Za-z_]\w*)\s*\(", code):
        depth, i = 0, m.end() - 1
        while i < len(code):
            depth += (code[i] == "(") - (code[i] == ")")
            if depth == 0:
                break
            i += 1
        brace = re.compile(r"[{;]").search(code, i)
        if brace is None or brace.group() == ";":
            continue
        depth, j = 0, brace.start()
        while j < len(code):
            depth += (code[j] == "{") - (code[j] == "}")
            if depth == 0:
                break
            j += 1
        found[m.group(1)] = None if m.group(1) in found else (brace.start(), j + 1)
    return found


def _without_ranges(code, ranges):
    out, pos = [], 0
    for start, end in sorted(ranges):
        out.append(code[pos:start])
        pos = end
    return "".join(out) + code[pos:]


def _definitions(tokens):
    """{kernel: (parameters' token range, body's '{' index, '}' index), or None if defined twice
    or a template}."""
    found = {}
    for i, tok in enumerate(tokens):
        if tok.text != "__global__":
            continue
        j = i + 1
        while j < len(tokens) and not (tokens[j].kind == "word" and tokens[j + 1].text == "("
                                       and tokens[j].text not in ("__launch_bounds__",
                                                                  "__attribute__")):
            if tokens[j].text in (";", "{"):
                break
            j += 1
        if j >= len(tokens) or tokens[j].text in (";", "{"):
            continue
        name, close = tokens[j].text, _closing(tokens, j + 1)
        k = close + 1
        while k < len(tokens) and tokens[k].text not in ("{", ";"):
            k += 1
        if k >= len(tokens) or tokens[k].text == ";":
            continue
        before = [x.text for x in tokens[max(0, i - 40):i]]
        cut = max((n for n, x in enumerate(before) if x in (";", "}")), default=-1)
        template = "template" in before[cut + 1:]
        found[name] = None if name in found or template else (
            (j + 2, close), k, _closing(tokens, k))
    return found


def _parameter_names(tokens, first, end):
    names, depth, last = [], 0, None
    for tok in tokens[first:end]:
        if tok.text in ("(", "[", "<"):
            depth += 1
        elif tok.text in (")", "]", ">"):
            depth -= 1
        elif tok.text == "," and depth == 0:
            names.append(last)
            last = None
        elif tok.kind == "word" and depth == 0:
            last = tok.text
    return [n for n in [*names, last] if n]


def _rewrite(text, tokens, params, open_brace, close_brace, preprocessed_body):
    """The (start, end, text) edits that rewrite one kernel; _Refused where it cannot be."""
    body = tokens[open_brace + 1:close_brace]
    if any(x.text in _REFUSED for x in body):
        raise _Refused("a construct split.py does not rewrite")
    if any(x.text == "[" and body[n + 1].text in ("&", "=", "]") for n, x in enumerate(body[:-1])):
        raise _Refused("a lambda")
    waits = [m.group(1) for m in _USES_FIBERS.finditer(preprocessed_body)]
    kernel = _Kernel(tokens, open_brace + 1, close_brace, _parameter_names(tokens, *params))
    if waits != ["sync_block"] * len(kernel.barriers) or _CUDA_API.search(preprocessed_body):
        raise _Refused("the preprocessed kernel waits elsewhere")
    if len(re.findall(r"\breturn\b", preprocessed_body)) != len(kernel.returns):
        raise _Refused("a return the text does not show")
    changed = _changed_parameters(body, kernel.params)
    in_scope = [d for d in kernel.declarations if d.lifted and d.automatic]
    lifted = [d for d in in_scope if not d.constant]
    if any(not d.movable for d in lifted):
        raise _Refused("a variable in scope at a barrier that split.py cannot move")
    _check_names(tokens, kernel, lifted, open_brace, close_brace)

    edits = [(tokens[i].start, tokens[i].end, "static constexpr") for d in in_scope
             if d.constant for i in range(*d.specifiers) if tokens[i].text == "constexpr"]
    for d in lifted:
        edits += _assignments(text, tokens, d)
    for n, i in enumerate(kernel.barriers, start=1):
        edits.append((tokens[i].start, tokens[i + 3].end, f"__SIM_BARRIER({n})"))
    for i in kernel.returns:
        edits.append((tokens[i].start, tokens[i + 1].end, "__SIM_RETURN"))
    names = changed + [name for d in lifted for name, *_ in d.names]
    copies = "".join(f"auto __sim_param_{p} = {p}; " for p in changed)
    members = "".join([*(f"decltype(__sim_param_{p}) {p}; " for p in changed),
                       *(f"{member}; " for d in lifted for _, member, _, _ in d.names)])
    refs = "".join(f"auto &{n} = __sim_self->{n}; " for n in names)
    starts = "".join(f"{p} = __sim_param_{p}; " for p in changed)
    edits.append((tokens[open_brace].start, tokens[open_brace].end,
                  f"{{ {copies}struct __sim_lifted {{ {members}}}; "
                  f"__SIM_SPLIT_BEGIN(__sim_lifted) {refs}switch (__sim_at) {{ case 0:; {starts}"))
    edits.append((tokens[close_brace].start, tokens[close_brace].end, "} __SIM_SPLIT_END }"))
    return edits


def _changed_parameters(body, params):
    """The parameters the body assigns or takes the address of: a block's threads share the
    parameters once split, so each thread gets its own copy of these (moved, as a variable)."""
    changed = []
    for n, tok in enumerate(body):
        if tok.text not in params or (n and body[n - 1].text in (".", "->")):
            continue
        before = body[n - 1].text if n else ""
        after = body[n + 1].text if n + 1 < len(body) else ""
        pointed = before == "&" and after not in ("[", "->", ".") and (
            n < 2 or (body[n - 2].kind not in ("word", "number")
                      and body[n - 2].text not in (")", "]")))
        if (after in _ASSIGN or before in ("++", "--") or pointed) and tok.text not in changed:
            changed.append(tok.text)
    return changed


def _check_names(tokens, kernel, lifted, open_brace, close_brace):
    """A moved variable's name is bound for the whole body, so it must mean that variable
    wherever it is written: declared once, used only from its declaration to its scope's end,
    and not a parameter's name."""
    declared = [name for d in kernel.declarations for name, *_ in d.names]
    for d in lifted:
        for name, _, _, first in d.names:
            if declared.count(name) > 1 or name in kernel.params:
                raise _Refused(f"{name} declared twice")
            for i in range(open_brace + 1, close_brace):
                if tokens[i].text == name and tokens[i - 1].text not in (".", "->") and \
                        not first <= i <= d.scope_end:
                    raise _Refused(f"{name} used outside its declaration's scope")


def _assignments(text, tokens, d):
    """Edits that make a moved declaration the assignment of its values: the specifiers and
    pointer marks blanked (lines and columns kept); an array's declaration blanked whole."""
    def blank(a, b):
        start, end = tokens[a].start, tokens[b - 1].end
        return start, end, re.sub(r"[^\n]", " ", text[start:end])

    if d.names[0][2] is None:  # one array, without values
        return [blank(d.start, d.end)]
    edits = [blank(*d.specifiers)]
    for name, _, _, first in d.names:
        name_at = next(i for i in range(first, d.end) if tokens[i].text == name)
        if first < name_at:
            edits.append(blank(first, name_at))
    return edits
