"""The panels of the terminal client, one module each.

- :mod:`tui.widgets.tree` — :class:`FederationTree`, the federation's organizations and units and
  each one's state for the question in flight.
- :mod:`tui.widgets.answer` — :class:`AnswerView`, the answer (streamed as it is written) with the
  routers' summaries, every ``[n]`` a link to its evidence row.
- :mod:`tui.widgets.evidence` — :class:`EvidenceTable`, the passages the answer cites, and
  :class:`PassageView`, the selected one whole.

A clicked citation, in the answer or in a summary, posts :class:`Cited`.
"""

from tui.widgets._citations import Cited
from tui.widgets.answer import AnswerView
from tui.widgets.evidence import EvidenceTable, PassageView
from tui.widgets.tree import FederationTree

__all__ = ["AnswerView", "Cited", "EvidenceTable", "FederationTree", "PassageView"]
