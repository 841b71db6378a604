"""Replacing a file in one step: write beside it, then rename over it.

A reader — or a process started after a crash — sees either the old file or the whole new one,
never a half-written one, because ``os.replace`` is atomic within a folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; when the block ends without error it replaces ``path``.

    If the block fails, ``path`` is left as it was and the temporary file is removed.
    """
    tmp = Path(f"{path}.tmp")
    try:
        yield tmp
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)
