"""What a record's measurements say: "heart rate 107" is a fast heart rate, "oxygen saturation 86%" low oxygen.

Records give vital signs and laboratory values as numbers; people ask for the finding by name ("Which patients had
a fast heart rate?", "Who had low oxygen?"). Each finding of :data:`FINDINGS` — named as the synonym table of
:mod:`nodes.concepts` names it, with the words that say it in its row ("tachycardia", "high heart rate" …) — is
also written by a reading of its :class:`Measure` beyond the finding's threshold: the measure's name, then a colon
or a few linking words ("of", "was", "dropped to" …), then the number ("heart rate of 161", "Temp: 101.8 F",
"BP 82/50", "oxygen saturation 86% on room air"). A number a record sets as a limit or a goal is no reading ("hold
metoprolol for heart rate < 55", "goal glucose below 180"), nor one out of what the measure can be.

The thresholds are the usual clinical definitions (a heart rate above 100 is tachycardia, below 60 bradycardia;
38.0 °C, 100.4 °F, is a fever; an oxygen saturation below 90 % is hypoxemia …), not a diagnosis: a reading is what
the record measured, and an answer quotes it as such. The leaves' counts
(:meth:`nodes.data.store.LeafStore.term_stats`) and the gateway's quotes (:func:`nodes.concepts.mentions`) read
readings by this one module, so a finding is absent only where no record names it or measures it so.

Example::

    found = finding([("tachycardia",), ("fast", "heart", "rate")])  # a concept's alternatives, as terms
    said("Vital signs: heart rate 107, blood pressure 115/64.", found)   # True; heart rate 88: False; none: None
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nodes.data import lexical

#: Words a record writes between a measure's name and its number ("heart rate *was* 72", "pulse *dropped to* 45").
_LINKING = (r"of|was|is|were|are|at|to|on|in|the|a|an|remained|remains|initially|measured|noted|recorded|documented|"
            r"around|about|approximately|only|reading|dropped|fell|rose|increased|decreased|elevated|low|high|"
            r"persistently|sustained|max|maximum|peak|peaked|nadir")
#: Words just before a measure's name that make its number a limit, a goal or an order, not a reading.
_LIMITS = frozenset("""
hold held holding if for goal goals target targets keep maintain titrate titrated parameter parameters call notify
when unless below above under over less greater than while
""".split())
_BEFORE = re.compile(r"([^\W\d_]+)\W*$")


@dataclass(frozen=True)
class Measure:
    """A vital sign or laboratory value as records write it."""

    #: Its names in a record (a regular expression, case ignored).
    names: str
    #: Names one of which a passage holding a reading of it holds, each whole (where the leaves' counts start).
    words: tuple[str, ...]
    #: The values it can take, in its own unit (others are no reading of it).
    low: float
    high: float
    #: What follows the number: a second number (a blood pressure's diastolic), a unit (a saturation's percent sign:
    #: "sat" alone names much else).
    after: str = ""
    #: The number in the measure's unit, from the number and what followed it.
    unit: Callable[[float, str], float] = lambda value, after: value

    @functools.cached_property
    def terms(self) -> tuple[tuple[str, ...], ...]:
        """The index terms of each of :attr:`words`: a passage holding a reading of it holds all of one's."""
        return tuple(tuple(lexical.terms(word)) for word in self.words)

    @functools.cached_property
    def pattern(self) -> re.Pattern:
        return re.compile(rf"\b(?:{self.names})\b(?:\s*[:=]\s*|\s*\(|\s+)(?:(?:{_LINKING})\s+)*(\d+(?:\.\d+)?)({self.after})",
                          re.IGNORECASE)


def _celsius(value: float, after: str) -> float:
    """A body temperature in °C: written in °F when it says so, or when it is one of °F's (86–113)."""
    scale = after.strip().lstrip("°º").strip().casefold()[-1:] if after.strip() else ""
    if scale == "f" or (scale != "c" and 86.0 <= value <= 113.0):
        return (value - 32.0) * 5.0 / 9.0
    return value


def _mg_dl(value: float, after: str) -> float:
    """A glucose in mg/dL (written in mmol/L when it says so)."""
    return value * 18.0 if "mmol" in after.casefold() else value


HEART_RATE = Measure(r"heart\s+rate|pulse(?:\s+rate)?(?!\s*ox)|hr", ("heart rate", "pulse", "hr"), 20, 300,
                     after=r"\s*(?:beats|bpm)?")
TEMPERATURE = Measure(r"temperature|temp|tmax|febrile\s+to", ("temperature", "temp", "tmax", "febrile"),
                      30, 45, after=r"\s*(?:°|º|degrees?|deg\.?)?\s*(?:[cf]\b)?", unit=_celsius)
OXYGEN = Measure(r"(?:oxygen|o2)\s+(?:saturation|sats?)|spo2|sao2|pulse\s+ox(?:imetry)?|saturation|sats?|saturating|"
                 r"saturated", ("oxygen", "o2", "spo2", "sao2", "ox", "oximetry", "saturation", "sat", "sats",
                                "saturating", "saturated"), 30, 100, after=r"\s*(?:%|percent\b)")
SYSTOLIC = Measure(r"blood\s+pressure|bp", ("blood pressure", "bp"), 40, 300, after=r"\s*/\s*\d{2,3}")
GLUCOSE = Measure(r"(?:(?:blood|serum|fingerstick|capillary)\s+)?(?:glucose|sugar)s?|fingerstick|bg",
                  ("glucose", "sugar", "fingerstick", "bg"), 10, 2000, after=r"\s*(?:mg/dl|mmol/l|mmol)?", unit=_mg_dl)
POTASSIUM = Measure(r"(?:serum\s+)?potassium", ("potassium",), 1, 10)
SODIUM = Measure(r"(?:serum\s+)?sodium", ("sodium",), 100, 200)


@dataclass(frozen=True)
class Finding:
    """A finding a reading of ``measure`` writes: its value ``op`` ``limit`` (in the measure's unit)."""

    measure: Measure
    op: str
    limit: float

    def holds(self, value: float) -> bool:
        return _OPS[self.op](value, self.limit)


_OPS = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}

#: Each finding a reading writes, with its names: the rows the synonym table (:data:`nodes.concepts.SYNONYMS`) takes
#: them in ("low" and "high" are part of a name: "low potassium" is hypokalemia, not every potassium).
FINDINGS = [
    (("fast heart rate", "tachycardia", "high heart rate", "rapid heart rate", "racing heart", "elevated heart rate",
      "rapid pulse", "fast pulse"), Finding(HEART_RATE, ">", 100.0)),
    (("slow heart rate", "bradycardia", "low heart rate", "slow pulse"), Finding(HEART_RATE, "<", 60.0)),
    (("fever", "pyrexia", "febrile", "high temperature", "elevated temperature"), Finding(TEMPERATURE, ">=", 38.0)),
    (("high fever", "high-grade fever"), Finding(TEMPERATURE, ">=", 39.0)),
    (("low oxygen", "hypoxemia", "hypoxia", "low oxygen saturation", "desaturation", "low saturation"),
     Finding(OXYGEN, "<", 90.0)),
    (("low blood pressure", "hypotension"), Finding(SYSTOLIC, "<", 90.0)),
    (("low blood sugar", "hypoglycemia", "low glucose", "low blood glucose"), Finding(GLUCOSE, "<", 70.0)),
    (("high blood sugar", "hyperglycemia", "high glucose", "high blood glucose", "elevated glucose",
      "elevated blood sugar"), Finding(GLUCOSE, ">", 180.0)),
    (("low potassium", "hypokalemia"), Finding(POTASSIUM, "<", 3.5)),
    (("high potassium", "hyperkalemia", "elevated potassium"), Finding(POTASSIUM, ">", 5.0)),
    (("low sodium", "hyponatremia"), Finding(SODIUM, "<", 135.0)),
    (("high sodium", "hypernatremia", "elevated sodium"), Finding(SODIUM, ">", 145.0)),
]
#: The names of :data:`FINDINGS`, a row each, as the synonym table takes them.
NAMES = [list(names) for names, _ in FINDINGS]
_BY_TERMS = {tuple(lexical.terms(name)): found for names, found in FINDINGS for name in names}
_LONGEST = max(map(len, _BY_TERMS))
#: Terms a way of naming a finding may hold beside its name ("low oxygen *levels*", "hypoglycemia *episodes*").
_ASIDE = frozenset(lexical.terms("level levels reading readings value values episode episodes"))


def finding(alternatives: Sequence[Sequence[str]]) -> Finding | None:
    """The finding a concept names, if one: the first of its ``alternatives`` (each its terms) that is a name of
    :data:`FINDINGS`, or holds one beside words of :data:`_ASIDE` only."""
    for option in alternatives:
        option = lexical.folded(option)  # "BP" as "bp"
        if option in _BY_TERMS:
            return _BY_TERMS[option]
        for size in range(min(len(option) - 1, _LONGEST), 0, -1):
            for start in range(len(option) - size + 1):
                run = option[start:start + size]
                if run in _BY_TERMS and _ASIDE.issuperset(option[:start] + option[start + size:]):
                    return _BY_TERMS[run]
    return None


def said(text: str, found: Finding) -> bool | None:
    """What ``text``'s readings of ``found``'s measure say of it: ``True``, one holds it; ``False``, it is measured and
    none does ("febrile to 38.3 C" is no high fever); ``None``, it is not measured."""
    values = readings(text, found.measure)
    return any(found.holds(value) for value in values) if values else None


def readings(text: str, measure: Measure) -> list[float]:
    """The values ``text`` gives ``measure``, in its unit, in order."""
    found = []
    for match in measure.pattern.finditer(text):
        before = _BEFORE.search(text, max(0, match.start() - 40), match.start())
        if before and before.group(1).casefold() in _LIMITS:
            continue
        value = measure.unit(float(match.group(1)), match.group(2))
        if measure.low <= value <= measure.high:
            found.append(value)
    return found
