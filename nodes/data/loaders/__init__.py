"""Loaders: the formats hospitals bring, read as :class:`~nodes.data.records.Record` streams with a report.

======================  ==========================================================================
format                  reads
======================  ==========================================================================
``fedrag``              the project's JSON lines (``id``, ``text``, ``patient``, ``date``, ``metadata``)
``jsonl``, ``csv``      plain files with a declared ``text`` column (or every column as the text)
``mtsamples``           MTSamples transcriptions (JSON lines or the Kaggle CSV)
``mimic-discharge``     MIMIC-IV ``note/discharge.csv``
``mimic-hosp``          a MIMIC-IV ``hosp`` folder: one record per admission
``synthea``             a Synthea CSV export folder: one record per encounter, with names
``aci-bench``           ACI-BENCH visit notes, with names from the metadata
======================  ==========================================================================

:func:`load` adds what every format shares: records with empty text or an id seen before are
skipped and reported (file and line), ``where`` keeps only records whose metadata match (to split a
hospital by department), and ``shard`` keeps one of N stable shares of the patients (to spread one
data set over several organizations). Bad rows never stop a load; a file that cannot be read at all
raises :class:`~bus.errors.StoreError`.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable, Iterator
from pathlib import Path

from bus.errors import SpecError
from bus.messages import MAX_RECORD_ID
from nodes.data.loaders import _files, aci_bench, fedrag, mimic, mtsamples, synthea, tabular
from nodes.data.records import LoadReport, Record

FORMATS: dict[str, Callable[..., Iterator[tuple[str, Record]]]] = {
    "fedrag": fedrag.read,
    "jsonl": tabular.read_jsonl,
    "csv": tabular.read_csv,
    "mtsamples": mtsamples.read,
    "mimic-discharge": mimic.read_discharge,
    "mimic-hosp": mimic.read_hosp,
    "synthea": synthea.read,
    "aci-bench": aci_bench.read,
}


def revision(format: str) -> str:
    """A digest of the code that reads ``format`` (its loader's module and what every loader shares): a leaf whose
    loader changed reads its unchanged data again, so it never serves records an older loader wrote."""
    modules = [inspect.getmodule(FORMATS[format]), inspect.getmodule(load), _files]
    digest = hashlib.sha256()
    for module in dict.fromkeys(modules):
        digest.update(Path(inspect.getfile(module)).read_bytes())
    return digest.hexdigest()[:16]


def options_of(format: str) -> list[str]:
    """The options a format takes."""
    return [name for name in inspect.signature(FORMATS[format]).parameters if name not in ("path", "report")]


def check(format: str, options: dict) -> None:
    """Raises :class:`~bus.errors.SpecError` for an unknown format or option, naming what there is."""
    if format not in FORMATS:
        raise SpecError(f"unknown data format {format!r} (known: {', '.join(FORMATS)})")
    unknown = sorted(set(options) - set(options_of(format)))
    if unknown:
        taken = ", ".join(options_of(format)) or "none"
        raise SpecError(f"format {format!r} takes no option {', '.join(map(repr, unknown))} (it takes: {taken})")


def _share(key: str) -> int:
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "big")


def load(path: Path, format: str = "fedrag", *, where: dict[str, list] | None = None,
         shard: tuple[int, int] | None = None, **options) -> tuple[Iterator[Record], LoadReport]:
    """The records of ``path`` in ``format``, and the report the iterator fills as it runs.

    Args:
        path: a file or, for the folder formats, a folder.
        format: one of :data:`FORMATS`.
        where: keep records whose metadata value is one of the listed ones, for every key.
        shard: ``(n, i)``: keep the records of patients (or, without a patient, ids) in share ``i`` of ``n``.
        options: the format's own options (see each loader).

    Raises:
        SpecError: an unknown format or option.
        StoreError: when iterated, if the file cannot be read at all.
    """
    check(format, options)
    report = LoadReport(str(path))

    def records() -> Iterator[Record]:
        seen: set[str] = set()
        filtered = 0
        for where_, record in FORMATS[format](Path(path), report, **options):
            if not record.text.strip():
                report.skip(where_, f"record {record.id[:80]!r} has empty text")
                continue
            if len(record.id) > MAX_RECORD_ID:
                report.skip(where_, f"record id {record.id[:80]!r}... is {len(record.id)} characters (at most {MAX_RECORD_ID})")
                continue
            if record.id in seen:
                report.skip(where_, f"duplicate id {record.id[:80]!r}")
                continue
            seen.add(record.id)
            if where and not all(record.metadata.get(key) in values for key, values in where.items()):
                filtered += 1
                continue
            if shard and _share(record.patient or record.id) % shard[0] != shard[1]:
                filtered += 1
                continue
            report.accepted += 1
            yield record
        if filtered:
            report.notes.append(f"{filtered} records left out by 'where'/'shard'")

    return records(), report
