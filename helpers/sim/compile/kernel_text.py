"""A kernel's text read as split.py needs it: tokens, statements, the barriers and returns among
them, and the local declarations with the scopes they are in.

Not a C++ parser: it reads what kernels are made of (declarations of the usual types,
expression statements, blocks, if, for, while, do, switch, return, ``__syncthreads();``) and
raises Unreadable at anything else it would have to guess at, so that split.py leaves that
kernel to the fibers. The text is the learner's as the translation unit holds it, before the
preprocessor (split.py checks it against the preprocessed kernel).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

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
SPECIFIERS = {"const", "volatile", "unsigned", "signed", "short", "long", "int", "char", "float",
               "double", "bool", "void", "auto", "register", "static", "constexpr", "extern",
               "thread_local", "__shared__", "__constant__", "__device__", "inline"}
KNOWN_TYPE = re.compile(r"(u?(char|short|int|long|longlong)[1-4]|float[1-4]|double[1-4]|"
                         r"u?int(8|16|32|64)_t|u?intptr_t|size_t|ptrdiff_t|dim3|uint3|half2?|"
                         r"__half2?|__nv_bfloat162?|uint|ushort|uchar|ulong)$")
# Words before a name that make it no declaration: return f(x) calls f, new T(..) constructs one
NOT_A_TYPE = {"return", "else", "do", "case", "new", "delete", "throw", "sizeof", "goto"}
_POINTER_OPS = {"*", "&", "&&", "const", "volatile", "__restrict__", "__restrict"}
class Unreadable(Exception):
    """Text this reader cannot read with certainty (the kernel is then left to the fibers)."""


@dataclass
class Token:
    kind: str
    text: str
    start: int
    end: int


@dataclass
class Declaration:
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


def read_tokens(text, start, end):
    out = []
    pos = start
    while pos < end:
        m = _TOKEN.match(text, pos, end)
        if m is None:
            raise Unreadable(f"cannot read {text[pos:pos + 10]!r}")
        kind = m.lastgroup
        if kind == "string" and re.fullmatch(r'(u8|[uUL])?R"', m.group()):
            raise Unreadable("raw string")
        if kind not in ("space", "comment"):
            out.append(Token(kind, m.group(), m.start(), m.end()))
        pos = m.end()
    return out


def closing(tokens, i):
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
    raise Unreadable("unbalanced brackets")


class KernelText:
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
            close = closing(t, i)
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
                raise Unreadable("do without while")
            return self._condition(i + 1) + 2
        if word in ("case", "default"):
            while t[i].text != ":":
                i += 1
            return i + 1
        if word == "return":
            if t[i + 1].text != ";":
                raise Unreadable("return with a value")
            self.returns.append(i)
            return i + 2
        if word == "__syncthreads":
            if [x.text for x in t[i + 1:i + 4]] != ["(", ")", ";"] or self.switches:
                raise Unreadable("a barrier that is not a statement of its own")
            self.barriers.append(i)
            for scope in self.scopes:
                for d in scope:
                    d.lifted = True
            return i + 4
        if t[i].kind == "word" and t[i + 1].text == ":" and word not in ("public", "private"):
            raise Unreadable("a label")
        end = self._simple_end(i)
        declaration = self._declaration(i, end)
        if declaration is not None:
            self.scopes[-1].append(declaration)
            self.declarations.append(declaration)
        return end + 1

    def _condition(self, i):
        if self.t[i].text != "(":
            raise Unreadable("a condition without parentheses")
        close = closing(self.t, i)
        self._no_barrier(i, close)
        return close

    def _for(self, i):
        t = self.t
        close = self._condition(i + 1)
        header_end = next((j for j in range(i + 2, close) if t[j].text == ";"), None)
        self.scopes.append([])
        if header_end is None:  # for (x : range)
            self.scopes[-1].append(Declaration(i + 2, close, movable=False))
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
                raise Unreadable("a barrier inside an expression")
            j += 1
        return j

    def _no_barrier(self, i, end):
        if any(x.text == "__syncthreads" for x in self.t[i:end]):
            raise Unreadable("a barrier inside a condition")

    # ---- declarations ----
    def _declaration(self, i, end):
        """The declaration tokens[i:end] make, or None for another statement."""
        t = self.t
        j = i
        while j < end and (t[j].text in SPECIFIERS or KNOWN_TYPE.match(t[j].text)):
            j += 1
        if j == i:  # `T x`, `T *x`: T a type of the learner's
            if t[i].kind != "word" or i + 1 >= end:
                return None
            if t[i + 1].text in ("::", "<"):  # ns::T x, T<int> x, or an expression: unreadable
                return Declaration(i, end, movable=False)
            k = i + 1
            while k < end and t[k].text in ("*", "&"):
                k += 1
            if not (k < end and t[k].kind == "word"):
                return None
            j = i + 1
        words = [x.text for x in t[i:j]]
        d = Declaration(i, end, specifiers=(i, j))
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
                j = closing(t, j) + 1
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
