"""The thesis's case study on real public data: ``fedrag demo --data ../shared/data``.

The same three hospitals, units, users and policies as the embedded demo (:mod:`nodes.demo.federation`),
with each unit's records taken from the public data sets in ``shared/data`` by the loaders:

===========================  =============================================================================
leaf                         records
===========================  =============================================================================
``hospital_*.admissions``    the MIMIC-IV demo's admissions (``mimic-hosp``), one third of the patients each
``hospital_a.medicine``      ACI-BENCH visit notes, with the patients' names from their metadata
``hospital_b.medicine``      Synthea encounters with their conditions and medications, named patients
``hospital_a.surgery`` ...   MTSamples transcriptions, one department per group of specialties, with
                             synthetic patient names
===========================  =============================================================================

The data stays where it is: the spec points at it by absolute path, and nothing is copied.
"""

from __future__ import annotations

from pathlib import Path

from bus.errors import SpecError
from nodes.demo.federation import spec_text

#: MTSamples specialties making up each department.
DEPARTMENTS = {
    "hospital_a.surgery": ["Surgery", "Bariatrics", "Cosmetic / Plastic Surgery", "Urology", "ENT - Otolaryngology"],
    "hospital_a.orthopaedics": ["Orthopedic", "Podiatry", "Pain Management", "Physical Medicine - Rehab"],
    "hospital_a.psychiatry": ["Psychiatry / Psychology", "Sleep Medicine"],
    "hospital_b.cardiology": ["Cardiovascular / Pulmonary"],
    "hospital_c.neurology": ["Neurology", "Neurosurgery"],
}
#: Where each data set sits under the data folder.
FOLDERS = {"mtsamples": "mtsamples/mtsamples.jsonl", "mimic-hosp": "mimic-iv-demo", "synthea": "synthea",
           "aci-bench": "aci-bench"}


def leaves(data: Path) -> dict[str, dict]:
    """Each leaf's data keys (``data``, ``format``, ``options``, ``where``, ``shard``) over ``data``."""
    data = Path(data).resolve()
    missing = [name for name, rel in FOLDERS.items() if not (data / rel).exists()]
    if missing:
        raise SpecError(f"{data} lacks {', '.join(FOLDERS[m] for m in missing)}: the case study needs MTSamples, "
                        "the MIMIC-IV demo, Synthea and ACI-BENCH (see shared/data/README.md)")
    out: dict[str, dict] = {}
    for n, org in enumerate(("hospital_a", "hospital_b", "hospital_c")):
        out[f"{org}.admissions"] = {"data": str(data / FOLDERS["mimic-hosp"]), "format": "mimic-hosp", "shard": [3, n]}
    out["hospital_a.medicine"] = {"data": str(data / FOLDERS["aci-bench"]), "format": "aci-bench"}
    out["hospital_b.medicine"] = {"data": str(data / FOLDERS["synthea"]), "format": "synthea"}
    for path, specialties in DEPARTMENTS.items():
        out[path] = {"data": str(data / FOLDERS["mtsamples"]), "format": "mtsamples",
                     "options": {"synthetic_names": True}, "where": {"medical_specialty": specialties}}
    return dict(sorted(out.items()))


def prepare(data: Path, folder: Path, secure: bool = True) -> Path:
    """Writes the case study's spec (``case-study.toml``, or ``case-study-open.toml``) into ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    spec = folder / ("case-study.toml" if secure else "case-study-open.toml")
    text = spec_text(leaves(data), deadline_ms=5000, secure=secure, name="case-study")
    if not spec.exists() or spec.read_text() != text:
        spec.write_text(text)
    return spec
