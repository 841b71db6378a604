"""Plain-text tables for the chaos and load reports: a header, a rule under it, aligned columns."""

from __future__ import annotations

from collections.abc import Sequence


def text_table(rows: Sequence[Sequence[str]], *, first_left: bool = False, total: bool = False) -> list[str]:
    """The lines of a table whose first row is the header; numbers right-aligned, the first column left
    with ``first_left``; with ``total``, a rule above the last row too."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    rule = "  ".join("-" * w for w in widths)
    lines = ["  ".join(cell.ljust(w) if i == 0 and first_left else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(row, widths))) for row in rows]
    lines.insert(1, rule)
    if total:
        lines.insert(len(lines) - 1, rule)
    return lines
