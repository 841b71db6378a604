"""How a question's words are spelled: a word of a concept no dictionary holds ("pnemonia") may be a misspelling of
one it does ("pneumonia"), and is read so when no record the caller may search holds the word as written and some
hold it as the dictionary spells it — before the search (:func:`guesses`, :func:`settled`); and a word no record holds
that the dictionary cannot place may still be read as the best hit spells it, after the search (:func:`respelled`).

The dictionary is English as people write it (pyspellchecker's list of words with how often each is written, 160,000
words, common diseases and drugs among them) and every word of :mod:`nodes.concepts`' tables (drugs, brands,
abbreviations spelled out), so a drug's name is never taken for a misspelling. A word is guessed at only if it is five
letters or more, alphabetic, in no name of the question, in no dictionary and no form of a word one edit away in it
("statins"); its guesses are the dictionary's words one edit away (a letter added, dropped, changed, or two neighbours
swapped; the first letter kept), the :data:`GUESSES` most written.

The records decide, in the pass that counts the question's words (:meth:`nodes.gateway.Gateway._count`): each concept
holding a guessed word is counted again as the guesses spell it (:func:`guesses`), and the concept is read so only
when no record mentions it as written and some record mentions it as guessed (:func:`settled`) — "pnemonia" is
pneumonia where a record holds "pneumonia"; a word that is only rare ("levetiracetam" in a federation holding it) is
never changed. The gateway then embeds the question as the records spell it (:func:`rewritten`). Every node counts as
any other count is counted, so a federation and a centralized index read a question alike.

Example::

    guessed = guesses(analysis, names)
    stats = count(analysis.concepts + guessed.concepts, analysis.terms + guessed.terms)
    analysis, stats, meant = settled(analysis, stats, guessed)   # meant: {"pnemonia": "pneumonia"}
    text = rewritten(question, meant)
"""

from __future__ import annotations

import itertools
import re
import string
from dataclasses import dataclass, field, replace
from functools import cache

from bus.messages import MAX_ALTERNATIVES, MAX_CONCEPTS, MAX_TERMS, CollectionStats, Hit
from nodes.concepts import (ABBREVIATIONS, BRANDS, KINDS, SYNONYMS, Analysis, Concept, members, mention_counts, mentions,
                            written)
from nodes.data import lexical

#: The shortest word guessed at: shorter words are one edit from too many others ("gout", "goat", "glut").
SHORTEST = 5
#: How many of a word's guesses (the most written) are counted.
GUESSES = 3


@cache
def dictionary() -> dict[str, int]:
    """Each word of the dictionary (folded) and how often it is written (the tables' own words: as often as any), a
    possessive also without its apostrophe, as people write a disease named for someone ("alzheimers", "crohns")."""
    words = dict(written())
    for word, count in list(words.items()):
        if word.endswith("'s") and len(word) > 3:
            words.setdefault(word[:-2] + "s", count)
    ours = [*itertools.chain.from_iterable(SYNONYMS), *ABBREVIATIONS.values(), *BRANDS, *BRANDS.values(),
            *(" ".join([*names, *members(kind)]) for names, kind in KINDS)]
    top = max(words.values())
    for word in lexical.words(" ".join(ours)):
        words[word] = top
    return words


def _near(word: str) -> set[str]:
    """The strings one edit from ``word`` that keep its first letter."""
    head, rest = word[0], word[1:]
    splits = [(rest[:i], rest[i:]) for i in range(len(rest) + 1)]
    letters = string.ascii_lowercase
    return ({head + a + b[1:] for a, b in splits if b}
            | {head + a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
            | {head + a + c + b[1:] for a, b in splits if b for c in letters}
            | {head + a + c + b for a, b in splits for c in letters})


def guessed_words(word: str) -> list[str]:
    """What ``word`` (folded) may be a misspelling of: the dictionary's words one edit away, the most written first
    (then alphabetically), at most :data:`GUESSES` — none for a word the dictionary holds, a short one or one not all
    letters."""
    known = dictionary()
    if len(word) < SHORTEST or not (word.isascii() and word.isalpha()) or word in known:
        return []
    near = [other for other in _near(word) if other in known]
    if lexical.terms(word) in [lexical.terms(other) for other in near]:  # "statins": a form of "statin", the same term
        return []
    return sorted(near, key=lambda other: (-known[other], other))[:GUESSES]


@dataclass
class Guesses:
    """A question's concepts as their guessed words would spell them: ``concepts[i]`` is the question's concept
    ``of[i]`` with each of its guessed words' terms read as any of its guesses' (:attr:`Concept.alternatives`), counted
    beside the question's own; ``terms`` the guesses' terms; ``words`` each guessed word's term and its guesses, as
    (term, word) pairs."""

    concepts: list[Concept] = field(default_factory=list)
    of: list[int] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    words: dict[str, list[tuple[str, str]]] = field(default_factory=dict)


def guesses(analysis: Analysis, names: list[str] = ()) -> Guesses:
    """What the concepts of ``analysis`` would be if their words no dictionary holds were misspelled (never a word of
    ``names``: "Okonkwo" is nobody's misspelling), within :data:`~bus.messages.MAX_CONCEPTS` and
    :data:`~bus.messages.MAX_TERMS` counted together with the question's own."""
    found = Guesses()
    named = {word for name in names for word in lexical.words(name)}
    room = MAX_TERMS - len(analysis.terms)
    for i, concept in enumerate(analysis.concepts):
        if len(analysis.concepts) + len(found.concepts) >= MAX_CONCEPTS:
            break
        read: dict[str, list[str]] = {}
        for word in lexical.words(concept.text):
            said = lexical.terms(word)
            if word in named or len(said) != 1 or said[0] in read:
                continue
            options = [(term, other) for other in guessed_words(word) for term in lexical.terms(other)[:1] if term != said[0]]
            new = list(dict.fromkeys(term for term, _ in options if term not in analysis.terms and term not in found.terms))
            if options and len(new) <= room:
                read[said[0]] = [term for term, _ in options]
                found.words[said[0]] = options
                found.terms += new
                room -= len(new)
        if read:
            spelled = [tuple(option) for alternative in concept.alternatives
                       for option in itertools.product(*[read.get(term, [term]) for term in alternative])]
            found.concepts.append(replace(concept, alternatives=tuple(dict.fromkeys(spelled))[:MAX_ALTERNATIVES]))
            found.of.append(i)
    return found


def settled(analysis: Analysis, stats: CollectionStats | None,
            guessed: Guesses) -> tuple[Analysis, CollectionStats | None, dict[str, str]]:
    """The question's analysis and counts once the records have counted its ``guessed`` spellings (their counts after
    its own concepts' in ``stats``): a concept no record mentions as written but some mention as guessed is read as
    guessed, each guessed word as its guess the most records hold (then the most written); and which words were so
    read (folded), for :func:`rewritten`."""
    own = len(analysis.concepts)
    if stats is None or not guessed.concepts or len(stats.concepts) != own + len(guessed.concepts):
        return analysis, stats, {}
    concepts, counts, terms, meant = list(analysis.concepts), list(stats.concepts[:own]), list(analysis.terms), {}
    for i, concept, n in zip(guessed.of, guessed.concepts, stats.concepts[own:]):
        if counts[i] or not n:
            continue
        chosen = {}
        for term, options in guessed.words.items():
            if not any(term in option for option in analysis.concepts[i].alternatives):
                continue
            held = [(stats.df.get(guess, 0), -options.index((guess, word)), guess, word) for guess, word in options]
            best = max(held)
            if best[0]:
                chosen[term] = best[2]
                meant[_written(analysis.concepts[i].text, term)] = best[3]
        if not chosen:
            continue
        spelled = tuple(dict.fromkeys(tuple(chosen.get(term, term) for term in option)
                                      for option in analysis.concepts[i].alternatives))
        concepts[i], counts[i] = replace(analysis.concepts[i], alternatives=spelled), n
        terms += [term for term in chosen.values() if term not in terms]
    read = replace(analysis, terms=terms[:MAX_TERMS], concepts=concepts) if meant else analysis
    return read, stats.model_copy(update={"concepts": counts}), meant


def _written(text: str, term: str) -> str:
    """The word of ``text`` (folded) whose term is ``term``."""
    return next(word for word in lexical.words(text) if lexical.terms(word) == [term])


def rewritten(question: str, meant: dict[str, str]) -> str:
    """``question`` with each word of ``meant`` (folded) written as it is meant, its first letter's case kept."""
    if not meant:
        return question

    def spell(match: re.Match) -> str:
        word = meant[match.group(0).casefold()]
        return word[:1].upper() + word[1:] if match.group(0)[:1].isupper() else word

    return re.sub(r"\b(?:" + "|".join(map(re.escape, meant)) + r")\b", spell, question, flags=re.IGNORECASE)


#: A word no record holds is taken for a misspelling of one the best hit holds at most this many edits away (a letter
#: added, dropped, changed, or two swapped; the first letter kept), by its length: "hypertenion" is "hypertension".
RESPELL_EDITS = ((5, 1), (9, 2))


def respelled(analysis: Analysis, stats: CollectionStats | None,
              hits: list[Hit]) -> tuple[Analysis, CollectionStats, dict[str, str]] | None:
    """The analysis and counts of a question whose concepts no record mentions only as they are misspelled: each
    word of such a concept whose term no record the caller may search holds (its count, :attr:`CollectionStats.df`,
    is 0) is read as the nearest word of the best of ``hits`` within :data:`RESPELL_EDITS` (held by most hits, then
    alphabetically, for a tie; never a word of a patient's name: "mania" is not "Maria"), and a concept so read that
    the best hit mentions counts as mentioned by the hits that do — the search found what the question meant.
    ``None`` when nothing is so read: a concept no record mentions in any spelling near the question's, or only
    passages below the best, stays absent. Beside them, how each word so read was read (as :attr:`bus.asking.Answer.
    read_as` tells the asker: "metfromin" → "metformin")."""
    if mention_counts(analysis, stats) is None or not hits:
        return None
    unknown = {term for term, n in stats.df.items() if n == 0 and "|" not in term}
    if not unknown or not any(n == 0 for n in stats.concepts):
        return None
    texts = [hit.text for hit in hits]
    named = {word for hit in hits if hit.patient for word in lexical.words(hit.patient)}
    best = dict.fromkeys(set(lexical.words(texts[0])) - named, 0)  # the best hit's words, by how many hits hold each
    for text in texts:
        for word in best.keys() & set(lexical.words(text)):
            best[word] += 1
    concepts, counts, terms = list(analysis.concepts), list(stats.concepts), list(analysis.terms)
    words: dict[str, str] = {}
    for i, (concept, n) in enumerate(zip(analysis.concepts, stats.concepts)):
        if n:
            continue
        read, spelled = {}, {}
        for word in lexical.words(concept.text):
            said = lexical.terms(word)
            if len(said) == 1 and said[0] in unknown and (near := _nearest(word, best)) and (meant := lexical.terms(near)):
                read[said[0]], spelled[word] = meant[0], near
        alternatives = tuple(tuple(read.get(term, term) for term in option) for option in concept.alternatives)
        candidate = replace(concept, alternatives=tuple(dict.fromkeys(alternatives))[:MAX_ALTERNATIVES])
        if read and mentions(texts[0], [candidate]):  # the search found what was meant, not only a passage near it
            concepts[i], counts[i] = candidate, sum(mentions(text, [candidate]) for text in texts)
            terms += [meant for meant in read.values() if meant not in terms]
            words.update(spelled)
    if concepts == analysis.concepts:
        return None
    return (replace(analysis, terms=terms[:MAX_TERMS], concepts=concepts),
            stats.model_copy(update={"concepts": counts}), words)


def _nearest(word: str, held: dict[str, int]) -> str | None:
    """The word of ``held`` nearest ``word`` within :data:`RESPELL_EDITS`, with the same first letter (held by most
    hits, then alphabetically), or ``None``."""
    edits = max((n for length, n in RESPELL_EDITS if len(word) >= length), default=0)
    found = [(distance, -count, other) for other, count in held.items()
             if other[:1] == word[:1] and abs(len(other) - len(word)) <= edits and other != word
             and (distance := _edits(word, other, edits)) <= edits]
    return min(found)[2] if found else None


def _edits(a: str, b: str, most: int) -> int:
    """How many edits turn ``a`` into ``b`` (a letter inserted, deleted or changed, or two neighbours swapped), or
    ``most + 1`` once more than ``most``."""
    previous, current = None, list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        before, previous, current = previous, current, [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > most:
            return most + 1
    return current[len(b)]
