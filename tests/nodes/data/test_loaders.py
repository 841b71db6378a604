"""Every loader on small files the tests write, on bad input, and on the real data in ``shared/data``."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from bus.errors import SpecError, StoreError
from nodes.data.loaders import check, load
from nodes.data.loaders._names import FEMALE as FEMALE_NAMES
from nodes.data.loaders.synthea import person_name

#: The public data sets: ../shared/data beside the repository, or where FEDRAG_SHARED_DATA says.
SHARED = Path(os.environ.get("FEDRAG_SHARED_DATA") or Path(__file__).resolve().parents[4] / "shared" / "data")


def read(path, format="fedrag", **options):
    records, report = load(path, format, **options)
    return list(records), report


def write(path: Path, text: str, encoding="utf-8") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode(encoding)))
    else:
        path.write_bytes(text.encode(encoding))
    return path


# -- the project's JSON lines, and what every format shares ----------------------------------------

def test_fedrag_lines_with_every_kind_of_bad_row(tmp_path):
    good = {"id": "a", "text": "Cough.", "patient": "Ana Ruiz", "date": "2023-01-02", "metadata": {"dept": "er"}}
    lines = [json.dumps(good), "{not json", '["a"]', json.dumps({"text": "no id"}), json.dumps({"id": "b", "text": ""}),
             json.dumps({"id": "a", "text": "again"}), json.dumps({"id": "c", "text": "x", "metadata": {"n": {"d": 1}}})]
    path = tmp_path / "d.jsonl"
    path.write_bytes(("\n".join(lines) + "\n").encode() + b'{"id": "e", "text": "caf\xe9"}\n{"id": "f", "te')
    records, report = read(path)
    assert [(r.id, r.patient, r.date, r.metadata) for r in records] == [("a", "Ana Ruiz", "2023-01-02", {"dept": "er"})]
    reasons = {s.where.rsplit(":", 1)[1]: s.reason for s in report.skipped}
    assert reasons == {"2": reasons["2"], "3": "expected a JSON object, got list", "4": "missing string field 'id'",
                       "5": "record 'b' has empty text", "6": "duplicate id 'a'",
                       "7": "'metadata' must be an object of scalar values", "8": "not UTF-8 text",
                       "9": "truncated (the file ends mid-record)"}
    assert reasons["2"].startswith("not valid JSON")
    assert (report.read, report.accepted, report.skipped_count) == (9, 1, 8)


def test_where_and_shard_split_records_stably(tmp_path):
    rows = [{"id": f"r{i}", "text": f"note {i}", "patient": f"P{i % 7}", "metadata": {"dept": "a" if i % 2 else "b"}}
            for i in range(60)]
    path = write(tmp_path / "d.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    kept, report = read(path, where={"dept": ["a"]})
    assert {r.id for r in kept} == {f"r{i}" for i in range(1, 60, 2)} and "30 records left out" in report.notes[0]
    shares = [{r.id for r in read(path, shard=(3, i))[0]} for i in range(3)]
    assert set().union(*shares) == {r["id"] for r in rows} and sum(map(len, shares)) == 60
    by_patient = [{r.patient for r in read(path, shard=(3, i))[0]} for i in range(3)]
    assert not (by_patient[0] & by_patient[1]) and not (by_patient[1] & by_patient[2]), "a patient stays in one share"


def test_unknown_formats_and_options_are_named():
    with pytest.raises(SpecError, match="unknown data format 'xlsx'.*known: fedrag"):
        check("xlsx", {})
    with pytest.raises(SpecError, match="takes no option 'txt'.*text"):
        check("csv", {"txt": "body"})


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(StoreError, match="does not exist"):
        read(tmp_path / "nope.jsonl")


# -- plain CSV and JSON lines -----------------------------------------------------------------------

def test_csv_with_a_text_column_and_bad_rows(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_bytes(b"note_id,who,day,body,ward\n1,Ana Ruiz,2023-01-02T10:00,Chest pain.,cardio\n"
                     b"2,Bo Chen,2023-01-03,,cardio\n3,Cy,2023-01-04,too,many,fields\n"
                     b"4,D\xe9 Li,2023-01-05,Fever.,er\n5,Ed Yu,2023-01-06,\"Rash on the arm.\",er\n"
                     b"6,Fi Ng,2023-01-07,\"unterminated")
    records, report = read(path, "csv", text="body", id="note_id", patient="who", date="day")
    assert [(r.id, r.text, r.patient, r.date, r.metadata) for r in records] == [
        ("1", "Chest pain.", "Ana Ruiz", "2023-01-02", {"ward": "cardio"}),
        ("5", "Rash on the arm.", "Ed Yu", "2023-01-06", {"ward": "er"})]
    reasons = [s.reason for s in report.skipped]
    assert reasons[0] == "record '2' has empty text" and reasons[1] == "6 fields where the header has 5"
    assert reasons[2] == "not UTF-8 text" and reasons[3] == "4 fields where the header has 5", "a truncated last row"
    assert report.skipped_count == 4


def test_csv_missing_its_text_column_is_refused_whole(tmp_path):
    path = write(tmp_path / "rows.csv", "id,body\n1,x\n")
    with pytest.raises(StoreError, match=r"rows.csv: missing column note \(it has: id, body\)"):
        read(path, "csv", text="note")


def test_a_structured_row_becomes_one_record_with_every_column(tmp_path):
    path = write(tmp_path / "labs.jsonl", json.dumps({"id": "L1", "test": "HbA1c", "value": 9.1, "unit": "%"}) + "\n")
    [record], _ = read(path, "jsonl")
    assert record.text == "id: L1; test: HbA1c; value: 9.1; unit: %" and record.metadata["value"] == 9.1


# -- MTSamples ----------------------------------------------------------------------------------

def test_mtsamples_csv_and_jsonl(tmp_path):
    csv_path = write(tmp_path / "mtsamples.csv", ',description,medical_specialty,sample_name,transcription,keywords\n'
                     '0, A knee.,Orthopedic, Knee Scope,"PREOPERATIVE DIAGNOSIS: torn meniscus.",knee\n'
                     '1, Empty.,Neurology, Blank,,\n')
    records, report = read(csv_path, "mtsamples", synthetic_names=True)
    [record] = records
    assert record.metadata["medical_specialty"] == "Orthopedic" and record.patient and " " in record.patient
    assert report.skipped_count == 1
    again, _ = read(csv_path, "mtsamples", synthetic_names=True)
    assert again[0].patient == record.patient, "synthetic names are stable"
    jsonl = write(tmp_path / "mt.jsonl", json.dumps({"id": "mt-1", "medical_specialty": "Urology",
                                                     "transcription": "HISTORY: hematuria."}) + "\n")
    [record], _ = read(jsonl, "mtsamples")
    assert (record.id, record.patient, record.metadata["medical_specialty"]) == ("mt-1", None, "Urology")


# -- MIMIC-IV -----------------------------------------------------------------------------------

DISCHARGE = ('note_id,subject_id,hadm_id,note_type,note_seq,charttime,storetime,text\n'
             '10-DS-1,10,20,DS,1,2180-05-07 00:00:00,,"\n Name:  ___                     Unit No:   ___\n \n'
             'Admission Date:  ___              Discharge Date:   ___\n \nDate of Birth:  ___             Sex:   F\n \n'
             'Service: MEDICINE\n \nAllergies: \nNo Known Allergies\n \nChief Complaint:\nShortness of breath\n"\n'
             '11-DS-1,11,21,DS,1,2180-06-01 00:00:00,,""\n')


def test_mimic_discharge_drops_the_scrubbed_header_and_keeps_the_service(tmp_path):
    path = write(tmp_path / "note" / "discharge.csv", DISCHARGE)
    records, report = read(path, "mimic-discharge")
    [record] = records
    assert "___" not in record.text and "Chief Complaint:" in record.text and "Sex" not in record.text
    assert record.metadata["service"] == "MEDICINE" and record.date == "2180-05-07"
    assert record.patient.split()[0] in FEMALE_NAMES, "named after the scrubbed header's sex"
    assert report.skipped_count == 1 and "empty text" in report.skipped[0].reason
    [plain], _ = read(path, "mimic-discharge", synthetic_names=False, where={"service": ["MEDICINE"]})
    assert plain.patient == "subject 10"


def test_mimic_hosp_joins_the_tables_of_an_admission(tmp_path):
    hosp = tmp_path / "hosp"
    write(hosp / "patients.csv.gz", "subject_id,gender,anchor_age\n10,F,64\n")
    write(hosp / "admissions.csv.gz", "subject_id,hadm_id,admittime,dischtime,admission_type,admission_location,"
          "discharge_location,insurance\n10,20,2180-05-06 22:23:00,2180-05-07 17:15:00,URGENT,TRANSFER FROM HOSPITAL,"
          "HOME,Other\n")
    write(hosp / "services.csv.gz", "subject_id,hadm_id,transfertime,prev_service,curr_service\n10,20,x,,MED\n")
    write(hosp / "diagnoses_icd.csv.gz", "subject_id,hadm_id,seq_num,icd_code,icd_version\n10,20,2,5723,9\n10,20,1,07070,9\n")
    write(hosp / "d_icd_diagnoses.csv.gz", "icd_code,icd_version,long_title\n5723,9,Portal hypertension\n"
          "07070,9,Unspecified viral hepatitis C\n")
    write(hosp / "prescriptions.csv.gz", "subject_id,hadm_id,drug\n10,20,Furosemide\n10,20,Furosemide\n10,20,Lactulose\n")
    [record], report = read(hosp, "mimic-hosp")
    assert record.id == "20" and record.date == "2180-05-06" and record.metadata["service"] == "MED"
    assert "Diagnoses: Unspecified viral hepatitis C; Portal hypertension." in record.text
    assert "Medications: Furosemide, Lactulose." in record.text and "female, age 64" in record.text
    assert record.text.startswith("Urgent admission on 2180-05-06")
    assert record.patient.split()[0] in FEMALE_NAMES, "a synthetic name matches the recorded sex"
    (hosp / "prescriptions.csv.gz").unlink()
    with pytest.raises(StoreError, match="no prescriptions.csv"):
        read(hosp, "mimic-hosp")


# -- Synthea and ACI-BENCH --------------------------------------------------------------------------

def test_synthea_names_and_joins_encounters(tmp_path):
    write(tmp_path / "patients.csv", "Id,FIRST,LAST\np1,Alice368,Gleason633\n")
    write(tmp_path / "encounters.csv", "Id,START,PATIENT,ORGANIZATION,ENCOUNTERCLASS,DESCRIPTION,REASONDESCRIPTION\n"
          "e1,2019-02-03T10:00:00Z,p1,o1,ambulatory,Follow-up visit,Hypertension\n"
          "e2,2019-03-03T10:00:00Z,ghost,o1,ambulatory,Visit,\n")
    write(tmp_path / "conditions.csv", "START,PATIENT,ENCOUNTER,DESCRIPTION\n2019-02-03,p1,e1,Essential hypertension\n")
    write(tmp_path / "medications.csv", "START,PATIENT,ENCOUNTER,DESCRIPTION\n2019-02-03,p1,e1,lisinopril 10 MG\n")
    records, report = read(tmp_path, "synthea")
    [record] = records
    assert (record.patient, record.date) == ("Alice Gleason", "2019-02-03")
    assert "Conditions: Essential hypertension." in record.text and "Medications: lisinopril 10 MG." in record.text
    assert "unknown patient" in report.skipped[0].reason and "Allergies" not in record.text, "the tables it lacks"
    write(tmp_path / "allergies.csv", "START,PATIENT,ENCOUNTER,DESCRIPTION,DESCRIPTION1,DESCRIPTION2\n"
          "2019-02-03,p1,e1,Penicillin V,Wheal (finding),\n2019-02-03,p1,e1,Shellfish,,\n")
    write(tmp_path / "procedures.csv", "START,PATIENT,ENCOUNTER,DESCRIPTION\n2019-02-03,p1,e1,Colonoscopy\n")
    [record], _ = read(tmp_path, "synthea")
    assert "Allergies: Penicillin V (reaction: Wheal (finding)); Shellfish." in record.text, record.text
    assert "Procedures: Colonoscopy." in record.text and "Immunizations" not in record.text



def synthea_export(folder: Path, patients: str, encounters: str) -> None:
    """A Synthea export of ``patients`` (a CSV with its header) and ``encounters`` (rows under the usual header), with
    no conditions or medications."""
    write(folder / "patients.csv", patients)
    write(folder / "encounters.csv", "Id,START,PATIENT,ENCOUNTERCLASS,DESCRIPTION,REASONDESCRIPTION\n" + encounters)
    for name in ("conditions", "medications"):
        write(folder / f"{name}.csv", "START,PATIENT,ENCOUNTER,DESCRIPTION\n")


def test_a_synthea_encounter_says_the_patients_sex_and_age_then(tmp_path):
    """"Which women …", "…in children?" are judged on a patient's sex and age (nodes.demographics); Synthea's encounters
    said neither, so every Synthea patient was kept whatever they were."""
    from nodes.demographics import Whom, facts, kept
    from nodes.data.chunking import chunk
    from bus.messages import Hit

    synthea_export(tmp_path, "Id,BIRTHDATE,FIRST,LAST,GENDER\np1,1941-09-18,Rose1,Adams2,F\n"
                   "p2,1990-01-01,Sam3,Lee4,M\np3,,Kim5,Ode6,\n",
                   "e1,1955-09-17T10:00:00Z,p1,ambulatory,Encounter for symptom,Childhood asthma\n"
                   "e2,2021-09-18T10:00:00Z,p1,ambulatory,Asthma follow-up,Asthma\n"
                   "e3,2020-06-01T10:00:00Z,p2,ambulatory,Asthma follow-up,Asthma\n"
                   "e4,2020-06-01T10:00:00Z,p3,ambulatory,Asthma follow-up,Asthma\n")
    records, _ = read(tmp_path, "synthea")
    assert [(r.metadata.get("sex"), r.metadata.get("age")) for r in records] == \
        [("female", 13), ("female", 80), ("male", 30), (None, None)], "the age at the visit; nothing where none is given"
    hits = [Hit(id=p.id, org="b", path="b.medicine", score=0.9, text=p.text, patient=p.patient, metadata=p.metadata)
            for record in records for p in chunk(record, 800)]
    assert set(facts(hits)["Rose Adams"].ages) == {13.0, 80.0}
    assert [h.id.split("#")[0] for h in kept(Whom(sex="female"), hits)[0]] == ["e1", "e2", "e4"]
    assert [h.id.split("#")[0] for h in kept(Whom(high=17), hits)[0]] == ["e1", "e2", "e4"], "asthma as a child"


def test_a_synthea_visit_repeated_on_other_days_is_the_same_evidence(tmp_path):
    from nodes.data.chunking import chunk
    from nodes.data.topk import digest

    synthea_export(tmp_path, "Id,FIRST,LAST\np1,Hattie1,Wolf2\n",
                   "e1,2013-04-11T10:00:00Z,p1,ambulatory,Encounter for problem,Chronic kidney disease stage 4\n"
                   "e2,2013-09-11T10:00:00Z,p1,ambulatory,Encounter for problem,Chronic kidney disease stage 4\n"
                   "e3,2013-10-11T10:00:00Z,p1,ambulatory,Encounter for problem,Acute bronchitis\n")
    records, _ = read(tmp_path, "synthea")
    [first], [second], [other] = (chunk(record, 800) for record in records)
    assert first.text.startswith("Hattie Wolf, 2013-04-11. ") and second.text.startswith("Hattie Wolf, 2013-09-11. ")
    assert digest(first.body, first.patient) == digest(second.body, second.patient) != digest(other.body, other.patient)
    assert person_name("Mar1a", "") == "Mara"


def test_aci_bench_takes_names_from_the_metadata(tmp_path):
    write(tmp_path / "valid.csv", 'dataset,encounter_id,dialogue,note\nvirtassist,D1,"[doctor] hi","CHIEF COMPLAINT\n\n'
          'Knee pain."\nvirtassist,D2,"[doctor] hello",""\n')
    write(tmp_path / "valid_metadata.csv", "dataset,encounter_id,patient_firstname,patient_familyname,patient_age,cc\n"
          "virtassist,D1,Brian ,White,58,knee pain\n")
    records, report = read(tmp_path, "aci-bench", dialogue=True)
    [record] = records
    assert (record.id, record.patient, record.metadata["chief_complaint"]) == ("valid/D1", "Brian White", "knee pain")
    assert record.text.endswith("DIALOGUE:\n[doctor] hi") and report.skipped_count == 1
    write(tmp_path / "valid_metadata.csv", "dataset,encounter_id,patient_firstname,patient_familyname\n"
          "virtassist,D1,christina,cooper\n")
    [record], _ = read(tmp_path, "aci-bench")
    assert record.patient == "Christina Cooper", "a name written all in small letters is capitalized"


# -- the real data sets -----------------------------------------------------------------------------

needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason=f"the public data folder {SHARED} is absent")


@needs_shared
@pytest.mark.parametrize("format, relative, at_least, named", [
    ("mtsamples", "mtsamples/mtsamples.jsonl", 2000, False),
    ("mimic-hosp", "mimic-iv-demo", 250, True),
    ("synthea", "synthea", 5000, True),
    ("aci-bench", "aci-bench", 200, True),
])
def test_the_real_data_sets_load(format, relative, at_least, named):
    records, report = read(SHARED / relative, format)
    assert len(records) >= at_least and report.accepted == len(records), report.summary()
    assert report.skipped_count <= 0.02 * report.read, report.summary()
    assert len({r.id for r in records}) == len(records)
    assert all(r.text.strip() for r in records)
    if named:
        assert sum(1 for r in records if r.patient) >= 0.9 * len(records)


def test_a_record_id_longer_than_a_leaf_takes_is_skipped_with_its_length(tmp_path):
    from bus.messages import MAX_RECORD_ID

    rows = [{"id": "x" * (MAX_RECORD_ID + 1), "text": "Cough."}, {"id": "y" * MAX_RECORD_ID, "text": "Fever."}]
    records, report = read(write(tmp_path / "d.jsonl", "".join(json.dumps(r) + "\n" for r in rows)))
    assert [r.id for r in records] == ["y" * MAX_RECORD_ID]
    assert [s.reason for s in report.skipped] == [f"record id {'x' * 80!r}... is {MAX_RECORD_ID + 1} characters "
                                                  f"(at most {MAX_RECORD_ID})"]
