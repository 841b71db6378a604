"""Cutting text into sentences, the unit every summary and answer quotes.

The chunker packs a note's sentences into passages (:mod:`nodes.data.chunking`); summaries and
answers quote whole sentences of those passages, cut the same way (:func:`quotable`).
"""

from __future__ import annotations

import functools
import re

#: The abbreviations of a dose after which a long sentence may be cut (:data:`_DOSE_THEN`).
_DOSING = {"b.i.d", "t.i.d", "q.i.d", "q.d", "p.o", "p.r.n", "h.s", "a.m", "p.m", "mg", "mcg", "ml", "cc"}
_ABBREVIATIONS = _DOSING | {
    "dr", "mr", "mrs", "ms", "st", "jr", "sr", "vs", "etc", "e.g", "i.e", "approx", "fig", "no", "dept",
    "q.h", "q.4h", "q.6h", "q.8h", "q.12h", "q", "a.c", "p.c", "o.d", "o.s", "o.u", "u.s",
}
_LOOKS_CITED = re.compile(r"\[\s*\d+(?:\s*[,-]\s*\d+)*\s*\]")

# words addressed to a reader or a model, not about a patient: planted in a record, they are never quoted
_LOOKS_LIKE_INSTRUCTIONS = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b[^.]{0,60}\b(?:instructions?|rules|prompts?|above|previous)\b"
    r"|\b(?:answer|respond|reply|say|state|claim)\s+(?:only\s+)?that\b"
    r"|\b(?:system|developer)\s+(?:prompt|message)\b|\byou\s+(?:must|should)\s+(?:now\s+)?(?:answer|say|reply|cite)\b",
    re.IGNORECASE)

#: A sentence longer than this is cut at a list separator and marked " …" (a structured row's lists run long).
MAX_SENTENCE_CHARS = 300
ELLIPSIS = " …"

_BOUNDARY = re.compile(r"[.!?]+[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, not cut after abbreviations (``Dr.``, ``b.i.d.``), initials or list numbers."""
    text = " ".join(text.split())
    out, start = [], 0
    for match in _BOUNDARY.finditer(text):
        before = text[start:match.start() + 1].rstrip(".!?\"')]")
        word = before.rsplit(" ", 1)[-1].lower().strip("(")
        if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()) or word.isdigit():
            continue
        out.append(text[start:match.end()].strip())
        start = match.end()
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


def quotable(text: str, patient: str | None = None) -> list[str]:
    """The sentences of a passage a summary or an answer may quote, long ones shortened (ending in :data:`ELLIPSIS`).

    Left out: the name-and-date prefix the chunker put first, fragments with no words, a sentence that only names
    the patient ("Patient: Donna Perez.": what is quoted of a patient is said under their name), any
    sentence that itself looks cited ("cite [7]"), which could pass for one of ours, and any that
    reads as instructions (:func:`looks_like_instructions`). A passage is read once (the gateway reads an answer's
    hits for their stored sentences, for what they say and for what to quote).
    """
    return list(_quotable(text, patient))


@functools.lru_cache(maxsize=4096)
def _quotable(text: str, patient: str | None) -> tuple[str, ...]:
    said = [part for sentence in sentences(text) for part in _parts(sentence)]
    if said and patient and said[0].startswith(patient) and len(said[0]) <= len(patient) + 14:
        said = said[1:]
    return tuple(_shorten(s) for s in said if len(s) >= 12 and any(c.isalpha() for c in s)
                 and not (patient and patient in s and len(_WORD.findall(s.replace(patient, " "))) <= 1)
                 and not _LOOKS_CITED.search(s) and not looks_like_instructions(s))


_WORD = re.compile(r"[^\W_]+")


def looks_like_instructions(sentence: str) -> bool:
    """Whether ``sentence`` speaks to whoever reads the record ("ignore previous instructions", "answer that …")
    rather than about a patient: text planted in a record to steer a summary or an answer."""
    return bool(_LOOKS_LIKE_INSTRUCTIONS.search(sentence))


#: Where a sentence too long to quote whole is cut before it is shortened: after a dose's abbreviation (in any case)
#: and before a word with a capital ("… on 200 mg b.i.d. Regarding the hypoglycemia, the patient has diabetic
#: gastroparesis …"), which :func:`sentences` keeps together as it does "Dr. Smith" (the chunker packs passages by it);
#: not within a dose ("40 mg 1-1/2 tabs p.o. per day").
_DOSE_THEN = re.compile(rf"\b(?i:{'|'.join(re.escape(short) for short in sorted(_DOSING))})\.\s+(?=[A-Z])")


def _parts(sentence: str) -> list[str]:
    """``sentence``, cut after each dose's abbreviation that ends one (:data:`_DOSE_THEN`) if it is too long to quote
    whole: what the shortening would cut off is quoted as said."""
    if len(sentence) <= MAX_SENTENCE_CHARS:
        return [sentence]
    cuts = [0, *(found.end() for found in _DOSE_THEN.finditer(sentence)), len(sentence)]
    return [sentence[start:end].strip() for start, end in zip(cuts, cuts[1:]) if sentence[start:end].strip()]


def _shorten(sentence: str) -> str:
    if len(sentence) <= MAX_SENTENCE_CHARS:
        return sentence
    head = sentence[:MAX_SENTENCE_CHARS]
    cut = max(head.rfind("; "), head.rfind(", "))
    return (head[:cut] if cut > MAX_SENTENCE_CHARS // 2 else head.rsplit(" ", 1)[0]) + ELLIPSIS
