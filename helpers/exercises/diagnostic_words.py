"""Words that the compile-error rules share (compile_errors, fragment_types, warp_reduce):
where a record lies, and a noun with its article."""


def where(d, path: str) -> str:
    """"line 15" in the learner's file, or "file:line" in another (a header of theirs); "your
    file" where the record has no file or line (what only the compiled object showed)."""
    if d.file is None or d.line is None:
        return "your file"
    return f"line {d.line}" if d.file == path or path.endswith(d.file) else f"{d.file}:{d.line}"


def a(what: str) -> str:
    return f"{'an' if what[:1] in 'aeio' or what.startswith('un') else 'a'} {what}"
