"""Words as the lexical index counts them, and BM25 scored with the federation's statistics.

:func:`terms` is the one tokenizer: NFKC, case folded, runs of letters and digits, English stop words
dropped, British spellings written the American way (:func:`american`: "oedema" and "edema", "tumour" and
"tumor" are one word), Snowball-stemmed (PyStemmer; an inflammation's name whole) — so "radiating" and "radiates"
are one term, and a question's ``"``, ``*``, ``NEAR`` or ``-`` are never syntax, only text. A leaf indexes its
passages with it, the gateway analyses questions with it, and the centralized baseline does both, so every side
counts the same terms.

BM25 (k1 = 1.2, b = 0.75) needs collection statistics: how many passages there are, their total length,
and how many contain each term. A federation computes them as one index would (as Elasticsearch's
``dfs_query_then_fetch`` does): each leaf counts what the caller may see, routers and the gateway add
the counts up, and every leaf then scores with those sums (:class:`bus.messages.CollectionStats`), so a
passage's score does not depend on how records are split over leaves. :func:`scorer` is the formula, term by
term in sorted order, so the floats are the same bit for bit wherever a passage is scored; :func:`scores` is
the same arithmetic over a leaf's postings at once (numpy, operation for operation: the same bits).
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable

import numpy as np
import Stemmer

from bus.messages import TERM_GROUP

#: Bumped when :func:`terms` changes: stores then index their passages again (no embedding).
VERSION = 3
K1 = 1.2
B = 0.75

_WORD = re.compile(r"[^\W_]+")
_POSSESSIVE = re.compile(r"['’]s\b")
_STEMMER = Stemmer.Stemmer("english")
#: Words too common to count (a short list: clinical words such as "no", "not" or "left" are kept).
STOP_WORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her
here hers herself him himself his how i if in into is it its itself just me more most my myself nor of off
on once only or other our ours ourselves out over own same she should so some such than that the their
theirs them themselves then there these they this those through to too under until up very was we were
what when where which while who whom why will with would you your yours yourself yourselves
""".split())


def words(text: str) -> list[str]:
    """The words of ``text`` as the index sees them before stemming: folded, possessives and stop words dropped."""
    folded = _POSSESSIVE.sub("", unicodedata.normalize("NFKC", text).casefold())
    return [word for word in _WORD.findall(folded) if word not in STOP_WORDS]


#: British spellings and their American ones, as (pattern, replacement) on a folded word: the roots of medicine
#: (haem-, paed-, oedema, oesophagus, diarrhoea, foetus, coeliac, anaesthesia, caesarean) and the endings
#: (-our, -tre, -ise, -isation, -ogue). Applied to the index and to questions alike, a replacement can only
#: join two spellings of one word — or two words no text tells apart by these letters alone.
SPELLINGS = [(re.compile(pattern), american) for pattern, american in [
    (r"aem", "em"), (r"paed", "ped"), (r"gynaec", "gynec"), (r"aetiol", "etiol"), (r"anaest", "anest"),
    (r"^caes", "ces"), (r"faec", "fec"), (r"caec", "cec"),
    (r"^oe(?=d|s|str)", "e"), (r"oea$", "ea"), (r"oeic$", "eic"), (r"foet", "fet"), (r"^coel", "cel"),
    (r"manoeuvre", "maneuver"), (r"manoeuv", "maneuv"),
    (r"(?<=[a-z]{2})our(?=s?$|ed$|ing$|able$|ite$|ites$)", "or"),
    (r"(?<=[a-z]{2})(t|b)re(?=s?$)", r"\1er"),
    (r"(?<=[a-z]{2})is(?=(?:ation|ations|e|es|ed|ing|er|ers)$)", "iz"),
    (r"(?<=[a-z]{3})ogue(?=s?$)", "og"),
]]


@functools.lru_cache(maxsize=65536)
def american(word: str) -> str:
    """``word`` (folded) spelled the American way, if :data:`SPELLINGS` holds its British spelling."""
    for pattern, replacement in SPELLINGS:
        word = pattern.sub(replacement, word)
    return word


#: The ending of an inflammation's name, kept whole: the stemmer cuts "pancreatitis" to the stem of "pancreatic",
#: "hepatitis" to that of "hepatic" and "appendicitis" to that of "appended", so a note of pancreatic insufficiency
#: would hold what a question about pancreatitis asks.
INFLAMMATION = "itis"


def terms(text: str) -> list[str]:
    """The index terms of ``text``, in order, repeats kept: each word stemmed, but the name of an inflammation
    (:data:`INFLAMMATION`)."""
    spelled = [american(word) for word in words(text)]
    return [word if word.endswith(INFLAMMATION) else stem for word, stem in zip(spelled, _STEMMER.stemWords(spelled))]


def counts(text: str) -> tuple[Counter, int]:
    """Each term's frequency in ``text``, and its length in terms."""
    found = terms(text)
    return Counter(found), len(found)


#: Joins the terms of a synonym group (:func:`group`), as the wire carries it: no term holds it (a term is letters and
#: digits).
GROUP = TERM_GROUP


def group(members) -> str:
    """One term made of ``members`` (a concept's one-word synonyms: "ecg|ekg|electrocardiogram"), which BM25 scores
    as one, as Lucene's ``SynonymQuery`` does: a passage holds it as often as it holds any of them in all — so "EKG"
    finds the records that write "ECG", and a concept said three ways counts once, not three times. Its document
    frequency is the passages holding any of them, counted exactly (Lucene takes the largest member's). A group of
    one is that term."""
    return GROUP.join(sorted(set(members)))


def parts(term: str) -> list[str]:
    """The terms a term of a question stands for: its group's members (:func:`group`), or itself."""
    return term.split(GROUP)


def frequency(tf: dict[str, int], term: str) -> int:
    """How often a passage whose term frequencies are ``tf`` holds ``term`` (each member of a group counted)."""
    return sum(tf.get(part, 0) for part in parts(term)) if GROUP in term else tf.get(term, 0)


#: The words that name a type, stage, grade or class by its number (:func:`written_together`).
SPECIFIERS = frozenset({"type", "stage", "grade", "class"})
_NUMERAL = re.compile(r"(\d)([a-c]?)")
#: The numbers a specifier may be written with in Roman numerals, by their digits.
ROMAN = {"1": "i", "2": "ii", "3": "iii", "4": "iv", "5": "v"}


def specifier(option: tuple[str, ...] | list[str]) -> tuple[str, str] | None:
    """The specifier that ends ``option`` — a concept's terms ending in a specifier's word and number, as
    :mod:`nodes.concepts` makes them for "CKD stage 4": ``("stage", "4")``, or in a word and the letter that says which
    of it ("hepatitis B", "vitamin D": ``("hepatitis", "b")``) — if it has one."""
    if len(option) < 2:
        return None
    if option[-2] in SPECIFIERS and _NUMERAL.fullmatch(option[-1]):
        return option[-2], option[-1]
    if letters_which(option[-2], option[-1]):
        return option[-2], option[-1]
    return None


def letters_which(word: str, letter: str) -> bool:
    """Whether ``letter``, right after ``word``, says which of it is meant ("hepatitis B", "vitamin D"): one letter
    after a word of three or more."""
    return len(letter) == 1 and letter.isalpha() and len(word) > 2 and word.isalpha()


def held_terms(option: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The terms of ``option`` a text must hold: all (an abbreviation in capitals as its term: :func:`capitals`), but a
    specifier's number or letter (written "I" a number is no term; a letter alone says nothing)."""
    return folded(option[:-1] if specifier(option) else option)


def capitals(term: str) -> bool:
    """Whether ``term`` of a concept is written as the question wrote it, with its capitals: an abbreviation ("AIDS",
    "MS", "PAD") or an eponym ("Graves", "Down"; :mod:`nodes.concepts`). Held in the index as its term ("aid", "ms",
    "grave"), it is mentioned only where a text writes it with those capitals too (:func:`written_together`) —
    "hearing aids", "Ms. A" and a "grave disability" mention no AIDS, multiple sclerosis or Graves disease. Every other
    term is folded."""
    return term != term.casefold()


@functools.lru_cache(maxsize=4_096)
def _term_of(term: str) -> str:
    """``term`` as the index holds it ("" for a stop word: "Down" of "Down syndrome")."""
    return next(iter(terms(term)), "")


def folded(option: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """``option`` with each term in capitals (:func:`capitals`) as the index holds it (none for a stop word)."""
    return tuple(held for term in option if (held := _term_of(term) if capitals(term) else term))


def read_in_text(option: tuple[str, ...] | list[str]) -> bool:
    """Whether a text must be read to tell that it writes ``option`` (:func:`written_together`), not only its terms:
    a specifier, or an abbreviation in capitals."""
    return specifier(option) is not None or any(capitals(term) for term in option)


def _in_capitals(text: str, term: str) -> bool:
    """Whether ``text`` writes ``term`` (as the index holds it, or as written) with its capitals: an abbreviation with
    a capital after its first letter ("AIDS", "PEs", "EtOH"; not "aids", "Ms.", "Al"), an eponym with its first ("Grave's
    disease", not "grave disability")."""
    capital = slice(1, None) if any(c.isupper() for c in term[1:]) else slice(0, 1)  # where its capitals are
    held, written = _term_of(term), term.casefold()
    for found in _WORD.finditer(text):
        word = found.group(0)
        if any(c.isupper() for c in word[capital]) and (
                word.casefold() in (written, written + "s", written + "es") or (held and _term_of(word) == held)):
            return True
    return False


def written_together(text: str, option: tuple[str, ...] | list[str]) -> bool:
    """Whether ``text`` writes the specifier that ends ``option`` as one — "stage 4", "stage IV", "stage-4",
    "hepatitis B", "vitamin D3" — not apart ("stage 3a ... 4 mg", "hepatitis C … vitamin B12"); a number asked without
    a letter is written with any ("stage 3" of "stage 3a"), and each abbreviation in capitals in capitals
    (:func:`capitals`). True for an option without either. Leaves count and the gateway quotes by this rule."""
    if not all(_in_capitals(text, term) for term in option if capitals(term)):
        return False
    found = specifier(option)
    if found is None:
        return True
    if found[1] == "a":  # the article unless a capital: "influenza A", not "influenza a week ago"
        return re.search(rf"\b(?i:{re.escape(found[0])})\w*[\s-]+A\d*\b", text) is not None
    if found[1].isalpha():  # the word (its stem, however it ends) and its letter, a number after it or none
        return re.search(rf"\b{re.escape(found[0])}\w*[\s-]+{found[1]}\d*\b", text, re.IGNORECASE) is not None
    word, (number, letter) = found[0], _NUMERAL.fullmatch(found[1]).groups()
    letters = letter or "[a-c]?"
    return re.search(rf"\b{word}[\s-]+(?:{number}|{ROMAN.get(number, number)}){letters}\b", text, re.IGNORECASE) is not None


def idf(df: int, docs: int) -> float:
    """BM25's inverse document frequency (Lucene's, never negative)."""
    return math.log(1.0 + (docs - df + 0.5) / (df + 0.5))


def scorer(df: dict[str, int], docs: int, total_length: int) -> Callable[[dict[str, int], int], float]:
    """BM25 for the question terms in ``df`` (a group's counted as one term: :func:`group`), in a collection of ``docs``
    passages of ``total_length`` terms in all: a function of a passage's term frequencies and length, each term's weight
    computed once. Terms are summed in
    sorted order, so a passage scores the same bits wherever it is scored."""
    if docs <= 0:
        return lambda tf, length: 0.0
    average = total_length / docs if total_length else 1.0
    weights = [(term, idf(df[term], docs)) for term in sorted(df) if df[term]]

    def score(tf: dict[str, int], length: int) -> float:
        norm = K1 * (1.0 - B + B * length / average)
        total = 0.0
        for term, weight in weights:
            f = frequency(tf, term)
            if f:
                total += weight * f * (K1 + 1.0) / (f + norm)
        return total

    return score



#: Up to how many labels (beyond four per posting) BM25's shares are added up in an array indexed by label
#: (:func:`scores`): a few hundred kilobytes at most, where sorting the postings to find their labels costs more.
DENSE_LABELS = 65_536
#: A term's postings as columns: the labels of the passages holding it (ascending), how often each holds it, and
#: each one's length in terms.
Columns = tuple[np.ndarray, np.ndarray, np.ndarray]


def scores(df: dict[str, int], docs: int, total_length: int, columns: dict[str, Columns]) -> tuple[np.ndarray, np.ndarray]:
    """BM25 as :func:`scorer` gives it, for every passage in ``columns`` (each question term's postings) at once:
    their labels (ascending) and scores, the same bits as :func:`scorer` — each posting's share by the same
    operations, the shares added to each passage's 0.0 term by term in sorted order (``np.bincount`` adds in the
    order given), each passage adding only the terms it holds. Shares are added up by label where labels are few
    enough for an array of them all (a leaf's labels run from 0 up), else by each label's place among those held."""
    held = [found for found, _, _ in columns.values()]
    everyone = np.concatenate(held) if len(held) > 1 else held[0] if held else np.zeros(0, np.int64)
    size = int(everyone.max()) + 1 if len(everyone) else 0
    dense = size <= DENSE_LABELS + 4 * len(everyone)
    labels = np.flatnonzero(np.bincount(everyone, minlength=size)) if dense else np.unique(everyone)
    counted = [term for term in sorted(df) if df[term] and term in columns]
    if docs <= 0 or not len(labels) or not counted:
        return labels, np.zeros(len(labels))
    average = total_length / docs if total_length else 1.0
    weight = np.repeat([idf(df[term], docs) for term in counted], [len(columns[term][0]) for term in counted])
    found, tf, length = (np.concatenate([columns[term][i] for term in counted]) for i in range(3))
    norm = K1 * (1.0 - B + B * length / average)
    shares = weight * tf * (K1 + 1.0) / (tf + norm)
    if dense:
        return labels, np.bincount(found, weights=shares, minlength=size)[labels]
    return labels, np.bincount(np.searchsorted(labels, found), weights=shares, minlength=len(labels))
