"""The public data model of the demo corpus: a ``Record`` and the ``DemoCorpus`` that holds them.

:mod:`nodes.demo.corpus` re-exports both (and :class:`~nodes.demo._trends.Trend`); import them from
there.  The corpus's question set is written by :func:`nodes.demo._trends.questions`.
"""

from __future__ import annotations

from dataclasses import dataclass

from nodes.demo._trends import Trend, questions


@dataclass(frozen=True)
class Record:
    """One retrievable document: a clinical note or an admission row.

    Attributes:
        id: Globally unique, stable id such as ``"hospital_a.medicine/note-0012"``
            or ``"hospital_b.admissions/ADM-B-0031"``.
        text: The note text (sections separated by a blank line, each starting
            with its UPPERCASE heading and a colon) or the admission row text.
        patient: The patient's full name, ``"First Last"``.
        metadata: Flat mapping of str/int/float/bool values.  Notes carry
            ``kind="note"``, ``note_type``, ``unit``, ``org``, ``patient_id`` and
            ``date``; admissions carry ``kind="admission"`` and every column.
    """

    id: str
    text: str
    patient: str
    metadata: dict


@dataclass(frozen=True)
class DemoCorpus:
    """The generated corpus.

    Attributes:
        seed: Seed the corpus was generated from.
        leaves: Leaf path (``"hospital_a.medicine"``) to its records, sorted by id.
        trends: The planted trends.
        patients: Sorted names of all patients.
    """

    seed: int
    leaves: dict[str, list[Record]]
    trends: tuple[Trend, ...]
    patients: tuple[str, ...]

    def records(self) -> list[Record]:
        """Returns every record of every leaf, in leaf order."""
        return [rec for leaf in self.leaves for rec in self.leaves[leaf]]

    def questions(self) -> list[str]:
        """Returns at least 25 varied clinical questions over this corpus.

        The list mixes the trend questions, unit-specific questions and a few
        questions naming specific patients of this corpus.  It is a pure
        function of the corpus, so it is deterministic for a seed.

        Returns:
            Unique question strings.
        """
        return questions(self)
