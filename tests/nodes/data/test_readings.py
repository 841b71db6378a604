"""What a record's measurements say: a reading beyond a finding's threshold writes the finding."""

from __future__ import annotations

import pytest

from nodes.data import lexical, readings
from nodes.data.records import Record
from nodes.data.store import LeafStore
from nodes.data.readings import GLUCOSE, HEART_RATE, OXYGEN, POTASSIUM, SODIUM, SYSTOLIC, TEMPERATURE
from tests.helpers.embedders import Fixed


def named(name: str) -> readings.Finding:
    found = readings.finding([lexical.terms(name)])
    assert found is not None, name
    return found


@pytest.mark.parametrize("text, measure, values", [
    ("Vital signs on arrival: heart rate 107, blood pressure 115/64, temperature 39.5 C.", HEART_RATE, [107.0]),
    ("Vital signs on arrival: heart rate 107, blood pressure 115/64, temperature 39.5 C.", SYSTOLIC, [115.0]),
    ("Vital signs on arrival: heart rate 107, blood pressure 115/64, temperature 39.5 C.", TEMPERATURE, [39.5]),
    ("presented with palpitations and a heart rate of 161.", HEART_RATE, [161.0]),
    ("BP: 82/50, HR 48, pulse ox 88% on room air", HEART_RATE, [48.0]),
    ("BP: 82/50, HR 48, pulse ox 88% on room air", OXYGEN, [88.0]),
    ("BP: 82/50, HR 48, pulse ox 88% on room air", SYSTOLIC, [82.0]),
    ("saturation of 84% and labored breathing", OXYGEN, [84.0]),
    ("Pulse was 72, Temp: 101.8 F.", TEMPERATURE, [pytest.approx(38.7777, abs=1e-3)]),
    ("Temperature 98.6, pulse 88.", TEMPERATURE, [pytest.approx(37.0)]),
    ("Glucose was 45 mg/dL.", GLUCOSE, [45.0]),
    ("Fingerstick glucose 3.1 mmol/L.", GLUCOSE, [pytest.approx(55.8)]),
    ("Sodium 128, potassium 2.9.", SODIUM, [128.0]),
    ("Sodium 128, potassium 2.9.", POTASSIUM, [2.9]),
])
def test_a_measure_is_read_after_its_name_and_a_few_linking_words(text, measure, values):
    assert readings.readings(text, measure) == values


@pytest.mark.parametrize("text, measure", [
    ("Hold metoprolol for heart rate < 55.", HEART_RATE),
    ("Hold metoprolol for heart rate 55 or lower.", HEART_RATE),
    ("Goal glucose below 180.", GLUCOSE),
    ("Heart rate and blood pressure 120/80.", HEART_RATE),
    ("Heart rate increased from 58 to 130.", HEART_RATE),
    ("O2 sat 86 on room air.", OXYGEN),  # a saturation is read with its percent sign
    ("Potassium chloride 20 mEq IV.", POTASSIUM),
    ("Sodium chloride 0.9% at 75 mL/h.", SODIUM),
    ("Temperature 52 in the storage room.", TEMPERATURE),  # no body's temperature
])
def test_a_limit_an_order_or_another_number_is_no_reading(text, measure):
    assert readings.readings(text, measure) == []


def test_a_reading_beyond_the_threshold_writes_the_finding_and_one_within_contradicts_it():
    assert readings.said("heart rate 107", named("tachycardia")) is True
    assert readings.said("heart rate 107", named("racing heart")) is True, "every name of its row"
    assert readings.said("heart rate 88", named("fast heart rate")) is not True
    assert readings.said("HR in the 40s", named("low heart rate")) is True
    assert readings.said("oxygen saturation 86% on room air", named("low oxygen")) is True
    assert readings.said("febrile to 39.2 C", named("high fever")) is True
    assert readings.said("febrile to 38.3 C", named("high fever")) is not True
    assert readings.said("febrile to 38.3 C", named("high fever")) is False, "measured, and no reading holds it"
    assert readings.said("Cough and fever.", named("high fever")) is None, "nothing measured, nothing contradicted"
    assert readings.said("Temp: 101.8 F", named("fever")) is True


def test_a_concept_names_a_finding_by_a_name_of_its_row_beside_words_of_how_it_is_measured():
    assert readings.finding([lexical.terms("low oxygen levels")]) is named("hypoxemia")
    assert readings.finding([lexical.terms("hypoglycemia episodes")]) is named("low blood sugar")
    assert readings.finding([lexical.terms("elevated potassium")]) is named("hyperkalemia")
    assert readings.finding([lexical.terms("heart rate")]) is None, "a measure is no finding"
    assert readings.finding([lexical.terms("low blood pressure medication")]) is None


def test_a_store_counts_the_passages_a_reading_writes_a_finding_of(tmp_path):
    """What tells the gateway a finding is in the records (:func:`nodes.concepts.grounding`) though no record names it."""
    store = LeafStore.open(tmp_path, "fixed", 4)
    try:
        store.apply([Record("a", "Vital signs: heart rate 121, oxygen saturation 86% on room air."),
                     Record("b", "Vital signs: heart rate 72, oxygen saturation 97% on room air."),
                     Record("c", "Sinus tachycardia on the monitor."),
                     Record("d", "Hold metoprolol for heart rate < 55.")], [], Fixed)
        fast = [list(lexical.terms(name)) for name in ("fast heart rate", "tachycardia")]
        slow = [list(lexical.terms(name)) for name in ("slow heart rate", "bradycardia")]
        low = [list(lexical.terms("low oxygen level"))]
        assert store.term_stats_at_hand([], [fast]) is None, "readings are read in the passages' text, off the loop"
        mentions = store.term_stats([], [fast, slow, low])[3]
        assert mentions == [2, 0, 1], "a and c are tachycardic, none bradycardic, a hypoxemic"
        assert store.term_stats_at_hand([], [fast])[3] == [2], "once read, until the store changes"
        hidden = store.term_stats([], [fast], visible=lambda metadata: metadata["record_id"] != "a")[3]
        assert hidden == [1], "what a caller may not see is not counted"
        store.apply([Record("e", "Pulse 134 and irregular.")], ["a"], Fixed)
        assert store.term_stats_at_hand([], [fast]) is None
        assert store.term_stats([], [fast, low])[3] == [2, 0], "a write is counted at once: c and e, nobody hypoxemic"
    finally:
        store.close()
