"""Evaluation: how relevant the federation's evidence and answers are, on labelled sets anyone can rerun.

* :mod:`nodes.eval.sets` — labelled sets as data (organizations of records, questions with their relevant
  records and gold answers), the loaders of the public ones (MedQuAD, PubMedQA) and of the demo's, and
  each set written as a federation;
* :mod:`nodes.eval.negatives` — questions the demo cannot answer, and the check that it really cannot;
* :mod:`nodes.eval.metrics` — nDCG, MRR, recall and success at k over records, and ROUGE-L;
* :mod:`nodes.eval.harness` — a set's federation built and started, every question asked through the
  gateway once per ranking mode, with the centralized baseline for the dense mode;
* :mod:`nodes.eval.report` — the outcomes added up per mode and question type, as tables and JSON.

``fedrag eval SET`` (:mod:`nodes.cli.eval`) runs them.
"""
