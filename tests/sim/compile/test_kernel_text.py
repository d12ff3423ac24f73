"""How compile/kernel_text.py reads a kernel's body: tokens, barriers, returns, the declarations in
scope at a barrier and what they would become, and what it refuses to guess at."""

import pytest

from helpers.sim.compile.kernel_text import KernelText, Unreadable, closing, read_tokens


def read(body, params=("x", "n")):
    """The KernelText of a kernel whose body is ``body`` (without its braces)."""
    tokens = read_tokens("{" + body + "}", 0, len(body) + 2)
    return KernelText(tokens, 1, closing(tokens, 0), list(params)), tokens


def test_comments_strings_and_preprocessor_lines_are_single_tokens():
    text = '#pragma unroll\nint a = 1; // x;\n/* y; */ printf("a;b");'
    tokens = read_tokens(text, 0, len(text))
    assert [t.kind for t in tokens] == ["pp", "word", "word", "op", "number", "op", "word", "op",
                                        "string", "op", "op"]


def test_a_raw_string_is_not_read():
    with pytest.raises(Unreadable):
        read_tokens('auto s = R"(a)";', 0, 16)


def test_the_declarations_in_scope_at_a_barrier_are_the_ones_to_move():
    kernel, tokens = read(
        "int t = threadIdx.x; const float *const p = x + t, q = 2; __shared__ float s[8];"
        " float a[4]; for (int k = 0; k < n; k++) { float v = p[k]; __syncthreads(); s[t] = v; }"
        " int late = t; if (t == 0) return; x[t] = late;")
    assert [tokens[i].text for i in kernel.barriers] == ["__syncthreads"]
    assert len(kernel.returns) == 1
    moved = {name: member for d in kernel.declarations if d.lifted and d.automatic
             for name, member, _, _ in d.names}
    assert moved == {"t": "int t", "p": "const float * p", "q": "float q", "a": "float a [ 4 ]",
                     "k": "int k", "v": "float v"}
    shared = [d for d in kernel.declarations if d.names[0][0] == "s"]
    assert shared[0].lifted and not shared[0].automatic  # a static: it stays where it is
    assert not any(d.lifted for d in kernel.declarations for name, *_ in d.names
                   if name == "late")


@pytest.mark.parametrize("declaration", ["int v;", "auto v = x[0];", "float v[2] = {1, 2};",
                                         "float &v = x[0];", "dim3 v(1, 2);",
                                         "std::size_t v = 3;"])
def test_a_declaration_it_cannot_move_is_marked_so(declaration):
    kernel, _ = read(declaration + " __syncthreads(); x[0] = 1;")
    assert [d.movable for d in kernel.declarations] == [False]


@pytest.mark.parametrize("body", ["int c = __syncthreads(), d;", "if (__syncthreads()) x[0] = 1;",
                                  "switch (n) { case 0: __syncthreads(); }", "again: x[0] = 1;",
                                  "return x[0];"])
def test_a_barrier_that_is_not_a_statement_of_its_own_and_labels_are_not_read(body):
    with pytest.raises(Unreadable):
        read(body)
