"""The FEDRAG thesis's case study, as the demo federation's users and policies.

Eight users of three hospitals, and named gate policies on every router and leaf that give exactly
the thesis's access matrix (:data:`MATRIX`; ✓ allowed, × denied). :func:`spec_tables` is the TOML the
demo spec carries; ``fedrag explain`` prints the matrix back from it.
"""

from __future__ import annotations

#: (id, name, org, role, dept, affiliations)
USERS = [
    ("U1", "A.phys.neur", "hospital_a", "physician", "surgery", ["C_neuro"]),
    ("U2", "A.phys", "hospital_a", "physician", "medicine", []),
    ("U3", "A.nurse", "hospital_a", "nurse", "psychiatry", []),
    ("U4", "A.tech.rad", "hospital_a", "technician", "radiology", []),
    ("U5", "A.admin", "hospital_a", "admin", "", []),
    ("U6", "B.phys", "hospital_b", "physician", "cardiology", []),
    ("U7", "B.nurse", "hospital_b", "nurse", "medicine", []),
    ("U8", "C.research", "hospital_c", "researcher", "neurology", []),
]

#: Required access by user name, per node path (the thesis's table).
_COLUMNS = ["hospital_a", "hospital_a.admissions", "hospital_a.medicine", "hospital_a.psychiatry", "hospital_a.surgery",
            "hospital_a.orthopaedics", "hospital_b", "hospital_b.admissions", "hospital_b.medicine",
            "hospital_b.cardiology", "hospital_c", "hospital_c.admissions", "hospital_c.neurology"]
_ROWS = {
    "A.phys.neur": "✓✓✓✓✓✓|✓✓✓✓|✓✓✓",
    "A.phys":      "✓✓✓✓✓✓|✓✓✓✓|✓××",
    "A.nurse":     "✓✓✓✓✓✓|✓✓✓✓|✓××",
    "A.tech.rad":  "✓××××✓|✓×××|✓××",
    "A.admin":     "✓✓××××|✓×××|✓××",
    "B.phys":      "✓✓✓✓✓✓|✓✓✓✓|×××",
    "B.nurse":     "✓✓××××|✓✓✓✓|×××",
    "C.research":  "××××××|××××|✓✓✓",
}
MATRIX: dict[str, dict[str, bool]] = {
    name: dict(zip(_COLUMNS, (mark == "✓" for mark in row.replace("|", "")))) for name, row in _ROWS.items()
}

_A_AND_B = '{name = "hospitals-a-and-b", require = {org = ["hospital_a", "hospital_b"]}}'
_A_CLINICIANS = '{name = "a-clinicians", require = {org = ["hospital_a"], role = ["physician", "nurse"]}}'
_B_PHYSICIANS = '{name = "b-physicians", require = {org = ["hospital_b"], role = ["physician"]}}'
#: Gate policies per node path.
GATES = {
    "hospital_a": [_A_AND_B],
    "hospital_a.admissions": ['{name = "a-and-b-clinicians-and-admins", require = {org = ["hospital_a", "hospital_b"], '
                              'role = ["physician", "nurse", "admin"]}}'],
    "hospital_a.medicine": [_A_CLINICIANS, _B_PHYSICIANS],
    "hospital_a.psychiatry": [_A_CLINICIANS, _B_PHYSICIANS],
    "hospital_a.surgery": [_A_CLINICIANS, _B_PHYSICIANS],
    "hospital_a.orthopaedics": [_A_CLINICIANS, _B_PHYSICIANS, '{name = "a-radiology-technicians", require = '
                                '{org = ["hospital_a"], role = ["technician"], dept = ["radiology"]}}'],
    "hospital_b": [_A_AND_B],
    **{f"hospital_b.{unit}": ['{name = "a-and-b-clinicians", require = {org = ["hospital_a", "hospital_b"], '
                              'role = ["physician", "nurse"]}}'] for unit in ("admissions", "medicine", "cardiology")},
    "hospital_c": ['{name = "a-staff-and-c", require = {org = ["hospital_a", "hospital_c"]}}'],
    **{f"hospital_c.{unit}": ['{name = "c-staff", require = {org = ["hospital_c"]}}',
                              '{name = "neuro-affiliates", require = {affiliations = ["C_neuro"]}}']
       for unit in ("admissions", "neurology")},
}


#: What one person may read of the demo in one question: physicians and researchers 50 passages, other staff 20.
MAX_PASSAGES = {"physician": 50, "researcher": 50, "nurse": 20, "technician": 20, "admin": 20}


#: What load tests and benchmarks let one person ask (each of their clients asks as one of the eight
#: users, back to back): the demo's own limits are a person's.
LOAD_LIMITS = {"max_questions_per_minute": 60_000, "concurrent_per_person": 64}


def limits_table(load: bool = False) -> list[str]:
    """The ``[limits]`` table: :data:`MAX_PASSAGES` per role, the rest at their defaults (or, for load
    tests, :data:`LOAD_LIMITS`)."""
    fewer = sorted(role for role, n in MAX_PASSAGES.items() if n < max(MAX_PASSAGES.values()))
    listed = ", ".join(f'"{role}"' for role in fewer)
    return ["[limits]", f"max_passages = {max(MAX_PASSAGES.values())}",
            *([f"{key} = {value}" for key, value in LOAD_LIMITS.items()] if load else []),
            f'rules = [{{name = "staff-reads-less", require = {{role = [{listed}]}}, '
            f"max_passages = {min(MAX_PASSAGES.values())}}}]", ""]


def trust_tables() -> list[str]:
    """What each hospital's own sign-in may vouch for beyond its members: the affiliations its users hold
    (A.phys.neur's ``C_neuro``, hospital C's neurology affiliation, is hospital A's to assert)."""
    held: dict[str, set[str]] = {}
    for _, _, org, _, _, affiliations in USERS:
        held.setdefault(org, set()).update(affiliations)
    lines = []
    for org, affiliations in sorted(held.items()):
        if affiliations:
            listed = ", ".join(f'"{a}"' for a in sorted(affiliations))
            lines += [f'[identity.trust."fedrag:{org}"]', f"vouches = {{affiliations = [{listed}]}}", ""]
    return lines


def user_tables() -> list[str]:
    """The ``[users.*]`` tables of the eight users."""
    lines = []
    for uid, name, org, role, dept, affiliations in USERS:
        listed = ", ".join(f'"{a}"' for a in affiliations)
        lines += [f"[users.{uid}]", f'name = "{name}"', f'org = "{org}"', f'role = "{role}"', f'dept = "{dept}"',
                  f"affiliations = [{listed}]", ""]
    return lines


def gate_line(path: str) -> str:
    """The ``gate = [...]`` line of the node at ``path``."""
    return "gate = [" + ", ".join(GATES[path]) + "]"
