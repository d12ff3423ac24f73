"""Text tables of a memory trace (helpers/sim/microscope/trace.py): per kernel and per source line."""

from __future__ import annotations


def _n(value):
    return f"{value:,}"


def _table(header, rows):
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                       for i, (c, w) in enumerate(zip(r, widths))) for r in [header, *rows]]
    return "\n".join(lines)


def _global_rows(stats):
    rows = []
    for label, c in (("global loads", stats.global_ld), ("global stores", stats.global_st)):
        if c.requests:
            moved = 32 * c.sectors
            rows.append([label, _n(c.requests), _n(c.sectors), f"{c.sectors_per_request:.2f}",
                         _n(c.bytes), _n(moved), f"{c.bytes / moved:.0%}" if moved else "-"])
    return rows


def _shared_rows(stats):
    rows = []
    for label, c in (("shared loads", stats.shared_ld), ("shared stores", stats.shared_st)):
        if c.requests:
            rows.append([label, _n(c.requests), _n(c.wavefronts), _n(c.bank_conflicts),
                         f"{c.bank_conflicts / c.requests:.2f}"])
    return rows


def kernel_table(stats):
    """The figures of one kernel (KernelStats), as a few aligned tables."""
    launches = f" ({stats.launches} launches)" if stats.launches > 1 else ""
    parts = [f"kernel {stats.name}{launches}"]
    rows = _global_rows(stats)
    if rows:
        parts.append(_table(["", "requests", "sectors", "sectors/request", "bytes used",
                             "bytes moved", "efficiency"], rows))
    rows = _shared_rows(stats)
    if rows:
        parts.append(_table(["", "requests", "wavefronts", "bank conflicts", "conflicts/request"],
                            rows))
    if not stats.global_ld.requests + stats.global_st.requests + stats.shared_ld.requests \
            + stats.shared_st.requests:
        parts.append("no loads or stores of global or shared memory")
    for label, a in (("global", stats.atomics), ("shared", stats.shared_atomics)):
        if a.requests:
            parts.append(f"{label} atomics: {_n(a.requests)} requests, {_n(a.lanes)} operations")
    steps = "step" if stats.blocks.requests else "memory request"
    parts.append(f"lane efficiency {stats.lane_efficiency:.1%}: on average "
                 f"{32 * stats.lane_efficiency:.1f} of a warp's 32 lanes take part in each {steps}")
    return "\n".join(parts)


def line_table(kernel, per_line):
    """One row per source line and kind of access, in line order."""
    rows = []
    for (_, _), stats in sorted(per_line.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        for label, c in (("global load", stats.global_ld), ("global store", stats.global_st),
                         ("shared load", stats.shared_ld), ("shared store", stats.shared_st)):
            if not c.requests:
                continue
            per_req = (f"{c.sectors_per_request:.2f} sectors" if label.startswith("global")
                       else f"{c.bank_conflicts / c.requests:.2f} conflicts")
            rows.append([stats.name, label, _n(c.requests), per_req,
                         f"{c.lane_efficiency:.0%}"])
    if not rows:
        return f"kernel {kernel}: no loads or stores of global or shared memory"
    return f"kernel {kernel}\n" + _table(["line", "access", "requests", "per request",
                                          "lanes active"], rows)
