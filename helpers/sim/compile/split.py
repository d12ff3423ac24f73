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
from dataclasses import dataclass

from .kernel_text import KernelText, Unreadable, closing, read_tokens
from .source import _USES_FIBERS, _closing, kernel_bodies, without_strings

VERSION = "6"  # part of a module's name in the cache: a change of the rewriting rebuilds it

# What reaches a barrier or a warp function through the prelude's CUDA headers (cooperative
# groups, mma.h, the pipeline primitives), whose waits are not in the learner's text: the groups
# and fragments, the functions that make or take them, and their methods.
_CUDA_API = re.compile(
    r"\b(cooperative_groups|nvcuda|wmma|__pipeline_\w+|memcpy_async|wait_prior|barrier_wait|"
    r"this_thread_block|this_grid|this_multi_grid|this_cluster|tiled_partition|coalesced_threads|"
    r"labeled_partition|binary_partition|thread_block|thread_block_tile|thread_group|"
    r"coalesced_group|grid_group|multi_grid_group|cluster_group|\w+_sync)\b"
    r"|\.\s*(sync|wait|shfl\w*|any|all|ballot|match_\w+)\s*\(")
# (The warp functions, __syncwarp and __nanosleep among them, are found in the preprocessed text.)
_REFUSED = {"goto", "asm", "__asm__", "__asm", "try", "throw", "template", "co_await",
            "co_yield", "co_return"}
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_NAME_AT_END = re.compile(r"([A-Za-z_]\w*)$")
_QUALIFIER_AT_END = re.compile(r"\b(const|noexcept|override)$")
_QUALIFIER_TAIL = len("noexcept") + 1  # the longest qualifier, and the character before it
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"}


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
    user_code = without_strings(user_code)  # a printf's "return" or "__syncthreads" is no code
    pre_kernels = kernel_bodies(user_code)
    waiting = _waiting_functions(user_code, set(pre_kernels))
    if waiting is None:
        return Plan(body, frozenset())
    try:
        tokens = read_tokens(body, 0, len(body))
    except Unreadable:
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
        except (Unreadable, IndexError):
            continue
        done.add(name)
    for start, end, text in sorted(edits, reverse=True):
        body = body[:start] + text + body[end:]
    return Plan(body, frozenset(done))


def _waiting_functions(code, kernels):
    """The names of the preprocessed code's other functions that wait (call a barrier or warp
    function, or a function that does); None where a wait is outside every function found.
    ``code`` is without_strings'."""
    bodies, i = {}, 0
    while (i := code.find("{", i)) >= 0:
        head = code[max(0, i - 4096):i].rstrip()  # a function's head: its parameters end it
        # (a regex searched from the left over 4,096 characters for each "{" took 0.3 s of
        # mma.h's: the tail is enough, with the character before the qualifier it looks for)
        tail = max(0, len(head) - _QUALIFIER_TAIL)
        head = (head[:tail] + _QUALIFIER_AT_END.sub("", head[tail:])).rstrip()
        end = _closing(code, i, "{", "}")
        if head.endswith(")") and end > 0:
            start = _matching_back(head, len(head) - 1)
            name = _name_at_end(head[:start]) if start >= 0 else None
            if name:
                bodies.setdefault(name.group(1), []).append((i, end))
                i = end
                continue
        i += 1
    outside = _without_ranges(code, [r for rs in bodies.values() for r in rs])
    if _USES_FIBERS.search(outside):
        return None
    text = {n: "".join(code[a:b] for a, b in rs) for n, rs in bodies.items() if n not in kernels}
    callers = {n: [] for n in text}  # name -> the functions whose text names it
    for n, t in text.items():
        for called in set(_IDENTIFIER.findall(t)) & callers.keys():
            callers[called].append(n)
    waiting = {n for n, t in text.items() if _USES_FIBERS.search(t) or _CUDA_API.search(t)}
    unseen = list(waiting)
    while unseen:
        for caller in callers[unseen.pop()]:
            if caller not in waiting:
                waiting.add(caller)
                unseen.append(caller)
    return waiting


def _name_at_end(text):
    """The identifier that ends text (before any spaces), found from the end: the same match as
    searching text for _NAME_AT_END with spaces allowed after it, without trying every position."""
    text = text.rstrip()
    j = len(text)
    while j and (text[j - 1].isalnum() or text[j - 1] == "_"):
        j -= 1
    return _NAME_AT_END.search(text[j:])


def _matching_back(code, i):
    """The index of the '(' that code[i], a ')', closes; -1 if none."""
    depth = 0
    for j in range(i, -1, -1):
        depth += (code[j] == ")") - (code[j] == "(")
        if depth == 0:
            return j
    return -1


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
        name, close = tokens[j].text, closing(tokens, j + 1)
        k = close + 1
        while k < len(tokens) and tokens[k].text not in ("{", ";"):
            k += 1
        if k >= len(tokens) or tokens[k].text == ";":
            continue
        before = [x.text for x in tokens[max(0, i - 40):i]]
        cut = max((n for n, x in enumerate(before) if x in (";", "}")), default=-1)
        template = "template" in before[cut + 1:]
        found[name] = None if name in found or template else (
            (j + 2, close), k, closing(tokens, k))
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
    """The (start, end, text) edits that rewrite one kernel; Unreadable where it cannot be."""
    body = tokens[open_brace + 1:close_brace]
    if any(x.text in _REFUSED for x in body):
        raise Unreadable("a construct split.py does not rewrite")
    if any(x.text == "[" and body[n + 1].text in ("&", "=", "]") for n, x in enumerate(body[:-1])):
        raise Unreadable("a lambda")
    waits = [m.group(1) for m in _USES_FIBERS.finditer(preprocessed_body)]
    kernel = KernelText(tokens, open_brace + 1, close_brace, _parameter_names(tokens, *params))
    if waits != ["sync_block"] * len(kernel.barriers) or _CUDA_API.search(preprocessed_body):
        raise Unreadable("the preprocessed kernel waits elsewhere")
    if len(re.findall(r"\breturn\b", preprocessed_body)) != len(kernel.returns):
        raise Unreadable("a return the text does not show")
    changed = _changed_parameters(body, kernel.params)
    in_scope = [d for d in kernel.declarations if d.lifted and d.automatic]
    lifted = [d for d in in_scope if not d.constant]
    if any(not d.movable for d in lifted):
        raise Unreadable("a variable in scope at a barrier that split.py cannot move")
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
                raise Unreadable(f"{name} declared twice")
            for i in range(open_brace + 1, close_brace):
                if tokens[i].text == name and tokens[i - 1].text not in (".", "->") and \
                        not first <= i <= d.scope_end:
                    raise Unreadable(f"{name} used outside its declaration's scope")


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
