"""Reading the files loaders take: CSV and JSON lines, plain or gzipped, row by row, never crashing on one row.

Bytes that are not UTF-8 are kept as surrogates while reading, so one bad row is reported (with its
line) and skipped instead of ending the load; a truncated last line or a malformed row is reported
and skipped the same way. Only a file that cannot be read at all — missing, not a CSV, lacking a
required column — raises :class:`~bus.errors.StoreError`.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

from bus.errors import StoreError
from nodes.data.records import LoadReport

csv.field_size_limit(min(sys.maxsize, 1 << 28))


def open_text(path: Path) -> io.TextIOBase:
    """``path`` opened for reading text (gunzipped if it ends in ``.gz``), undecodable bytes kept as surrogates.

    Raises:
        StoreError: the file is missing or unreadable.
    """
    path = Path(path)
    if not path.is_file():
        raise StoreError(f"{path} does not exist" if not path.exists() else f"{path} is not a file")
    try:
        raw = gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")
        return io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape", newline="")
    except OSError as exc:
        raise StoreError(f"{path}: {exc.strerror or exc}") from None


def undecodable(values) -> bool:
    """Whether any string in ``values`` holds bytes that were not UTF-8."""
    for value in values:
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return True
    return False


def csv_rows(path: Path, report: LoadReport, required: tuple[str, ...] = ()) -> Iterator[tuple[int, dict[str, str]]]:
    """``(line, row)`` for every usable row of a CSV file with a header.

    Raises:
        StoreError: the file is missing, has no header, or lacks a ``required`` column.
    """
    with open_text(path) as fh:
        reader = csv.reader(fh)
        try:
            header = next(reader)
        except StopIteration:
            raise StoreError(f"{path}: empty file, expected a CSV header") from None
        except csv.Error as exc:
            raise StoreError(f"{path}: not a CSV file ({exc})") from None
        header = [name.strip().lstrip("\ufeff") for name in header]
        missing = [name for name in required if name not in header]
        if missing:
            raise StoreError(f"{path}: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                             f"(it has: {', '.join(header[:20])})")
        while True:
            line = reader.line_num + 1
            try:
                fields = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                report.read += 1
                report.skip(f"{path}:{line}", f"malformed CSV ({exc})")
                if "end of data" in str(exc) or "EOF" in str(exc):
                    return  # a truncated file: nothing follows
                continue
            if not fields or all(not f.strip() for f in fields):
                continue
            report.read += 1
            if len(fields) != len(header):
                report.skip(f"{path}:{line}", f"{len(fields)} fields where the header has {len(header)}")
                continue
            if undecodable(fields):
                report.skip(f"{path}:{line}", "not UTF-8 text")
                continue
            yield line, dict(zip(header, fields))


def jsonl_rows(path: Path, report: LoadReport) -> Iterator[tuple[int, dict]]:
    """``(line, object)`` for every line of a JSON-lines file that holds a JSON object."""
    with open_text(path) as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            report.read += 1
            where = f"{path}:{number}"
            if undecodable([line]):
                report.skip(where, "not UTF-8 text")
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                truncated = not line.endswith("\n")
                report.skip(where, "truncated (the file ends mid-record)" if truncated else f"not valid JSON ({exc.msg})")
                continue
            if not isinstance(obj, dict):
                report.skip(where, f"expected a JSON object, got {type(obj).__name__}")
                continue
            yield number, obj


def scalar(value):
    """A metadata value: scalars as they are, anything else as compact JSON text."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
