"""``mimic-discharge`` and ``mimic-hosp``: MIMIC-IV discharge notes and the structured ``hosp`` tables.

``mimic-discharge`` reads ``note/discharge.csv`` (``note_id``, ``subject_id``, ``hadm_id``, ``charttime``,
``text``, ...): the header fields de-identification scrubbed (``Name: ___ Unit No: ___``, the admission,
discharge and birth dates, ``Sex``, ``Attending``) are removed as the FEDRAG thesis did, and the
``Service:`` line becomes metadata ``service`` so a spec can split a hospital by department.

``mimic-hosp`` reads a folder of ``hosp`` tables (``.csv`` or ``.csv.gz``): one record per admission
(``admissions``) with the patient's sex and age (``patients``), the services it went through
(``services``), its diagnoses in order with their titles (``diagnoses_icd`` + ``d_icd_diagnoses``) and
the drugs prescribed (``prescriptions``, at most ``max_drugs``), so "which patients received X" can match.

Patients are de-identified: with ``synthetic_names = true`` (the default) each ``subject_id`` gets a
stable made-up name, as the thesis's case study did; otherwise the subject id stands for the name.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from bus.errors import StoreError
from nodes.data.loaders._files import csv_rows
from nodes.data.loaders._names import synthetic_name
from nodes.data.records import LoadReport, Record

_SCRUBBED = re.compile(r"^\s*(Name|Unit No|Admission Date|Discharge Date|Date of Birth|Sex|Attending)\s*:", re.I)
_SERVICE = re.compile(r"^\s*Service\s*:\s*(.+?)\s*$", re.I | re.M)
#: MIMIC-IV's admission types, as a sentence says them.
_ADMISSION_TYPES = {"EW EMER.": "Emergency", "EU OBSERVATION": "Emergency-unit observation", "OBSERVATION ADMIT":
                    "Observation", "DIRECT EMER.": "Direct emergency", "DIRECT OBSERVATION": "Direct observation",
                    "AMBULATORY OBSERVATION": "Ambulatory observation", "SURGICAL SAME DAY ADMISSION": "Same-day surgical",
                    "ELECTIVE": "Elective", "URGENT": "Urgent"}
_SEX = re.compile(r"\bSex\s*:\s*([FM])\b", re.I)


def _person(subject_id: str, synthetic_names: bool, sex: str | None = None) -> str:
    return synthetic_name(f"mimic:{subject_id}", sex) if synthetic_names else f"subject {subject_id}"


def clean_discharge(text: str) -> tuple[str, str | None]:
    """The note without its scrubbed header lines, and its service."""
    service = _SERVICE.search(text)
    kept = [line for line in text.splitlines() if not _SCRUBBED.match(line) and not _SERVICE.match(line)]
    return "\n".join(kept).strip(), service.group(1).strip() if service else None


def read_discharge(path: Path, report: LoadReport, synthetic_names: bool = True) -> Iterator[tuple[str, Record]]:
    for line, row in csv_rows(path, report, ("note_id", "subject_id", "text")):
        where = f"{path}:{line}"
        sex = _SEX.search(row["text"])
        text, service = clean_discharge(row["text"])
        metadata = {"subject_id": row["subject_id"], "hadm_id": row.get("hadm_id", ""), "note_type": row.get("note_type", "DS")}
        if service:
            metadata["service"] = service
        date = (row.get("charttime") or "")[:10] or None
        person = _person(row["subject_id"], synthetic_names, sex.group(1) if sex else None)
        yield where, Record(row["note_id"], text, person, date, metadata)


def _table(folder: Path, name: str) -> Path:
    for candidate in (folder / f"{name}.csv.gz", folder / f"{name}.csv", folder / "hosp" / f"{name}.csv.gz",
                      folder / "hosp" / f"{name}.csv"):
        if candidate.is_file():
            return candidate
    raise StoreError(f"{folder}: no {name}.csv or {name}.csv.gz (a MIMIC-IV hosp folder is expected)")


def read_hosp(path: Path, report: LoadReport, synthetic_names: bool = True, max_drugs: int = 40) -> Iterator[tuple[str, Record]]:
    folder = Path(path)
    side = LoadReport(str(folder))  # problems in the joined tables are noted, not counted as records
    patients = {row["subject_id"]: row for _, row in csv_rows(_table(folder, "patients"), side, ("subject_id",))}
    services, diagnoses, drugs = defaultdict(list), defaultdict(list), defaultdict(list)
    for _, row in csv_rows(_table(folder, "services"), side, ("hadm_id", "curr_service")):
        services[row["hadm_id"]].append(row["curr_service"])
    for _, row in csv_rows(_table(folder, "diagnoses_icd"), side, ("hadm_id", "icd_code", "icd_version")):
        diagnoses[row["hadm_id"]].append((int(row.get("seq_num") or 0), row["icd_code"], row["icd_version"]))
    wanted = {(code, version) for codes in diagnoses.values() for _, code, version in codes}
    titles = {(row["icd_code"], row["icd_version"]): row["long_title"]
              for _, row in csv_rows(_table(folder, "d_icd_diagnoses"), side, ("icd_code", "icd_version", "long_title"))
              if (row["icd_code"], row["icd_version"]) in wanted}
    for _, row in csv_rows(_table(folder, "prescriptions"), side, ("hadm_id", "drug")):
        if row["drug"] and row["drug"] not in drugs[row["hadm_id"]]:
            drugs[row["hadm_id"]].append(row["drug"])
    if side.skipped_count:
        report.notes.append(f"{side.skipped_count} rows of the joined tables were skipped (first: "
                            f"{side.skipped[0].where}: {side.skipped[0].reason})")
    for line, row in csv_rows(_table(folder, "admissions"), report, ("subject_id", "hadm_id", "admittime")):
        hadm, subject = row["hadm_id"], row["subject_id"]
        person = patients.get(subject, {})
        listed = [titles.get((code, version), f"ICD-{version} {code}") for _, code, version in sorted(diagnoses[hadm])]
        sex = {"F": "female", "M": "male"}.get(person.get("gender", ""), "sex unknown")
        kind = row.get("admission_type", "")
        parts = [f"{_ADMISSION_TYPES.get(kind, kind.lower())} admission on {row['admittime'][:10]}"
                 f" from {row.get('admission_location', '').lower() or 'unknown'}, discharged "
                 f"{row.get('dischtime', '')[:10]} to {row.get('discharge_location', '').lower() or 'unknown'}.",
                 f"Patient: {sex}, age {person.get('anchor_age', 'unknown')}."]
        if services[hadm]:
            parts.append(f"Services: {', '.join(dict.fromkeys(services[hadm]))}.")
        if listed:
            parts.append(f"Diagnoses: {'; '.join(listed)}.")
        if drugs[hadm]:
            parts.append(f"Medications: {', '.join(drugs[hadm][:max_drugs])}.")
        metadata = {"subject_id": subject, "admission_type": row.get("admission_type", ""),
                    "service": services[hadm][0] if services[hadm] else "",
                    "discharge_location": row.get("discharge_location", ""), "insurance": row.get("insurance", "")}
        yield f"{_table(folder, 'admissions')}:{line}", Record(
            hadm, " ".join(parts), _person(subject, synthetic_names, person.get("gender")), row["admittime"][:10], metadata)
