"""The centralized baseline: one index over every leaf's passages, with the same vectors.

The federation promises that, with every policy open, its top-k equals the top-k of a single
index over the same passages (the seed thesis's ``ixn = 1.0``), exactly. :class:`CentralIndex` is
that single index — dense, lexical (BM25 with its own statistics, which are the sums a federation's
leaves report) or both fused as the gateway fuses them — and :func:`intersection` measures how far a federated answer is from it;
:func:`central_spec` makes the same passages a one-leaf federation, so the benchmark can time the
centralized path over the same broker.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from bus.asking import Answer
from bus.errors import StoreError
from bus.messages import Hit
from bus.subjects import org_of
from nodes.data.index import best_scores, exact_scores
from nodes.data.chunking import Passage
from nodes.data import lexical
from nodes.data.topk import Candidates, evidence, search_complete, select
from nodes.demographics import Whom, asks_which, kept, whom, widened
from nodes.merge import depth, fuse, lexical_depth
from summarizer.kinds import kind_of
from nodes.run.spec import FederationSpec
from nodes.data.records import patient_key
from nodes.data.store import LeafStore
from nodes.data.sync import open_leaf

_SEP = "::"


def key(path: str, passage_id: str) -> str:
    """A passage's federation-wide key: its leaf path and its id."""
    return f"{path}{_SEP}{passage_id}"


class _KnownVectors:
    """An "embedder" that returns the vectors the leaves already computed: a passage's by its text, a sentence's
    (:meth:`LeafStore.all_sentence_vectors`) by its key."""

    def __init__(self, fingerprint: str, vectors: dict[str, np.ndarray], sentences: dict[str, np.ndarray]) -> None:
        self.fingerprint = fingerprint
        self.vectors = vectors
        self.sentences = sentences

    def embed(self, texts: list[str], progress=None) -> np.ndarray:
        found = [self.vectors.get(t) if t in self.vectors else self.sentences.get(LeafStore.sentence_key(t))
                 for t in texts]
        missing = sum(vector is None for vector in found)
        if missing:
            raise StoreError(f"{missing} passages or sentences of the copy were never embedded by a leaf")
        return np.stack(found) if found else np.zeros((0, 0), dtype=np.float32)


def central_spec(spec: FederationSpec, folder: Path) -> FederationSpec:
    """A one-leaf federation (organization ``central``) holding every record of ``spec``.

    Its data file holds every leaf's stored records, ids prefixed with the leaf path (:func:`key`),
    so chunking gives the same passages; its store takes the vectors the leaves already computed
    rather than embedding everything again. Served like any federation, it is the baseline the
    benchmark measures the federation against.

    Raises:
        StoreError: a leaf's store has not been built yet (start the federation once first), or
            the leaves were built with different models.
    """
    return resplit(spec, folder, "central", {"central": 0}, spec.federation.deadline_ms)


def resplit(spec: FederationSpec, folder: Path, name: str, orgs: dict[str, int], deadline_ms: int) -> FederationSpec:
    """A federation ``name`` of the organizations ``orgs`` (each with that many leaves, ``u0``, ``u1`` …; 0: the
    organization is itself one leaf) holding every record of ``spec``'s leaves, dealt in turn over its leaves, ids
    prefixed with their leaf path (:func:`key`), and built with the vectors ``spec``'s leaves computed (nothing is
    embedded again). Open: no identities.

    Raises:
        StoreError: as :func:`central_spec`.
    """
    folder.mkdir(parents=True, exist_ok=True)
    leaves = [f"{org}.u{n}" if count else org for org, count in orgs.items() for n in range(max(count, 1))]
    files = {leaf: open(folder / f"{leaf}.jsonl", "w", encoding="utf-8") for leaf in leaves}
    vectors: dict[str, np.ndarray] = {}
    sentences: dict[str, np.ndarray] = {}
    fingerprints = set()
    dealt = 0
    try:
        for path in spec.leaves():
            store = LeafStore.existing(spec.leaf_folder(path))
            fingerprints.add(store.fingerprint)
            passages, matrix = store.all_vectors()
            vectors.update({p.text: v for p, v in zip(passages, matrix)})
            sentences.update(store.all_sentence_vectors())
            for record in store.iter_records():
                files[leaves[dealt % len(leaves)]].write(json.dumps(
                    {"id": key(path, record.id), "text": record.text, "patient": record.patient, "date": record.date,
                     "metadata": record.metadata}) + "\n")
                dealt += 1
            store.close()
    finally:
        for fh in files.values():
            fh.close()
    if len(fingerprints) != 1:
        raise StoreError(f"leaves were built with different models: {sorted(fingerprints)}")
    lines = ["[federation]", f'name = "{name}"', 'state_dir = "state"', f"deadline_ms = {deadline_ms}"]
    for leaf in leaves:
        lines += [f"[orgs.{leaf.replace('.', '.units.')}]", f'data = "{leaf}.jsonl"']
    spec_path = folder / f"{name}.toml"
    spec_path.write_text("\n".join(lines) + "\n")
    made = FederationSpec.load(spec_path)
    known = _KnownVectors(fingerprints.pop(), vectors, sentences)
    for path, node in made.leaves().items():
        store, _, _ = open_leaf(made.leaf_folder(path), node.source(), known.fingerprint, lambda: known, path=path,
                                verbose=False)
        store.close()
    return made


class CentralIndex:
    """Every passage of a federation in one exact index, ranked by the federation's own rules.

    Built from the leaves' saved stores — the same float32 vectors, not a re-embedding — and searched
    exactly, with the same scores (:func:`nodes.data.index.exact_scores`), the same total order, the same
    collapsing of copies and the same patient filter as the leaves, each hit keeping its leaf's path
    and id. It is the ground truth "federated top-k equals centralized top-k" is checked against.
    """

    def __init__(self, paths: list[str], passages: list[Passage], matrix: np.ndarray,
                 sentences: dict[str, dict[str, np.ndarray]] | None = None) -> None:
        self.paths = paths
        self.passages = passages
        self.matrix = np.asarray(matrix, dtype=np.float32)
        self._wide = self.matrix.astype(np.float64)
        self._term_counts: list[tuple[dict[str, int], int]] | None = None
        self._sentences = sentences or {}  # by leaf path, a sentence's vector by its key, as that leaf stored it
        self._sentence_rows: dict[int, np.ndarray | None] = {}
        self._rows = {(path, passage.id): row for row, (path, passage) in enumerate(zip(paths, passages))}
        #: Whether it holds records of patients (the gateway's CollectionStats.people): whom a question asks about counts
        self._of_patients = any(passage.patient for passage in passages)

    @classmethod
    def from_spec(cls, spec: FederationSpec) -> "CentralIndex":
        """Reads every leaf's saved store (which must exist).

        Raises:
            StoreError: a leaf's store has not been built yet, or the leaves use different models.
        """
        paths, passages, matrices, fingerprints, sentences = [], [], [], set(), {}
        for path in spec.leaves():
            store = LeafStore.existing(spec.leaf_folder(path))
            fingerprints.add(store.fingerprint)
            leaf_passages, matrix = store.all_vectors()
            sentences[path] = store.all_sentence_vectors()
            store.close()
            paths += [path] * len(leaf_passages)
            passages += leaf_passages
            matrices.append(matrix)
        if len(fingerprints) > 1:
            raise StoreError(f"leaves were built with different models: {sorted(fingerprints)}")
        return cls(paths, passages, np.concatenate(matrices) if matrices else np.empty((0, 0), np.float32), sentences)

    def search(self, vector: np.ndarray, k: int, patients: list[str] | None = None, *,
               collapse: bool = True, bm25: dict[int, float] | None = None, sentences: bool = False,
               per_patient: bool = False) -> list[Hit]:
        """The central top ``k`` for ``vector``, restricted to ``patients`` when given (each hit with its BM25
        from ``bm25``, by row, when given, and with ``sentences`` its best sentence's similarity, as a leaf's hits
        of a hybrid question; ``per_patient``: each patient's passages one piece of evidence, as a leaf groups them,
        :attr:`bus.messages.Query.per_patient`)."""
        vector = np.asarray(vector, dtype=np.float32)
        rows = np.arange(len(self.passages))
        if patients:
            wanted = {patient_key(name) for name in patients}
            rows = np.array([i for i in rows if patient_key(self.passages[i].patient) in wanted], dtype=np.int64)
        # float64 products of float32 values summed by BLAS: within 1e-12 of the exact score
        approx = self._wide[rows] @ vector.astype(np.float64) if len(rows) else np.empty(0)
        ranking = np.argsort(-approx, kind="stable")
        order, approx = rows[ranking], approx[ranking]

        def fetch(n: int) -> Candidates:
            chosen = order[:n]
            scores = exact_scores(self.matrix[chosen], vector)
            best = self._best_sentences(chosen, vector) if sentences else [None] * len(chosen)
            hits = [self._hit(int(i), float(s), float(s), None if bm25 is None else bm25.get(int(i), 0.0), b,
                              per_patient=per_patient) for i, s, b in zip(chosen, scores, best)]
            bound = float(approx[len(chosen) - 1]) + 1e-9 if len(chosen) else float("-inf")
            return Candidates(hits, bound=bound, exhausted=len(chosen) >= len(order))

        return search_complete(fetch, k, k, limit=max(len(order), 1), collapse=collapse, ties=False)

    def lexical(self, terms: list[str], k: int, patients: list[str] | None = None, *, collapse: bool = True,
                vector: np.ndarray | None = None, bm25: dict[int, float] | None = None,
                sentences: bool = False, per_patient: bool = False) -> list[Hit]:
        """The central top ``k`` by BM25 over every passage for the question's ``terms`` (as the gateway sends them),
        each hit with its cosine similarity to ``vector`` when given, and with ``sentences`` its best sentence's
        (``bm25``: :meth:`bm25` already computed)."""
        bm25 = self.bm25(terms, patients) if bm25 is None else bm25
        rows = sorted(bm25)
        similarity = exact_scores(self.matrix[rows], vector) if vector is not None and rows else [None] * len(rows)
        hits = [self._hit(row, bm25[row], None if s is None else float(s), bm25[row], per_patient=per_patient)
                for row, s in zip(rows, similarity)]
        chosen = select(hits, k, collapse=collapse)
        if sentences and vector is not None:
            best = self._best_sentences([self._rows[(hit.path, hit.id)] for hit in chosen], vector)
            chosen = [hit.model_copy(update={"sentence": b}) for hit, b in zip(chosen, best)]
        return chosen

    def bm25(self, terms: list[str], patients: list[str] | None = None) -> dict[int, float]:
        """BM25 over every passage holding one of ``terms`` (of ``patients``, when given), by row."""
        counts = self._counts()
        df = {term: sum(1 for tf, _ in counts if lexical.frequency(tf, term)) for term in dict.fromkeys(terms)}
        total = sum(length for _, length in counts)
        wanted = {patient_key(name) for name in patients} if patients else None
        score = lexical.scorer(df, len(counts), total)
        return {row: score(tf, length) for row, (tf, length) in enumerate(counts)
                if any(lexical.frequency(tf, term) for term in df)
                and (wanted is None or patient_key(self.passages[row].patient) in wanted)}

    def ranked(self, mode: str, vector: np.ndarray, terms: list[str], k: int, patients: list[str] | None = None, *,
               collapse: bool = True, question: str = "", focused: np.ndarray | None = None,
               about: list[list[list[str]]] | None = None) -> list[Hit]:
        """The central top ``k`` the way a question of ``mode`` ranks it: dense, lexical, or both fused (favouring what
        mentions the things asked ``about``) — the ``patients``' passages by the ``focused`` vector, if given
        (:attr:`bus.messages.Query.focused`), and of whom the question asks about (:mod:`nodes.demographics`)."""
        if patients and focused is not None:
            vector = focused
        asked = whom(question) if self._of_patients else Whom()
        wide = widened(asked, k)
        each = collapse and self._of_patients and asks_which(question) and not patients  # as a leaf that filtered
        if mode == "dense":
            return kept(asked, self.search(vector, wide, patients, collapse=collapse, per_patient=each))[0][:k]
        if mode == "lexical":
            return kept(asked, self.lexical(terms, wide, patients, collapse=collapse, per_patient=each))[0][:k]
        bm25, deep = self.bm25(terms, patients), depth(wide)
        return fuse(*kept(asked, self.search(vector, deep, patients, collapse=collapse, bm25=bm25, sentences=True,
                                             per_patient=each),
                          self.lexical(terms, lexical_depth(wide), patients, collapse=collapse, vector=vector, bm25=bm25,
                                       sentences=True, per_patient=each)),
                    k, kind_of(question), about or (), collapse=collapse)

    def as_answered(self, answer: Answer, mode: str, k: int, *, collapse: bool = True) -> list[Hit]:
        """The central top ``k`` of the question ``answer`` answers (asked with ``include_embedding``), ranked as
        ``mode`` ranks it with the same vectors, terms and patient filter."""
        focused = np.frombuffer(answer.focused, dtype="<f4") if answer.focused else None
        return self.ranked(mode, np.frombuffer(answer.embedding, dtype="<f4"), answer.terms, k, answer.patients or None,
                           collapse=collapse, question=answer.question, focused=focused, about=answer.about)

    def _counts(self) -> list[tuple[dict[str, int], int]]:
        if self._term_counts is None:
            self._term_counts = [tuple(lexical.counts(p.text)) for p in self.passages]
        return self._term_counts

    def _best_sentences(self, rows, vector: np.ndarray) -> list[float | None]:
        """Each row's best sentence's similarity to ``vector``, as a leaf computes it (:func:`nodes.data.retrievers.weigh`)."""
        for row in rows:
            row = int(row)
            if row not in self._sentence_rows:
                stored = self._sentences.get(self.paths[row], {})
                said = [stored.get(LeafStore.sentence_key(s)) for s in LeafStore.weighed(self.passages[row])]
                self._sentence_rows[row] = np.stack(said) if said and all(v is not None for v in said) else None
        return best_scores([self._sentence_rows[int(row)] for row in rows], vector)

    def _hit(self, row: int, score: float, similarity: float | None = None, bm25: float | None = None,
             sentence: float | None = None, *, per_patient: bool = False) -> Hit:
        passage, path = self.passages[row], self.paths[row]
        return Hit(id=passage.id, org=org_of(path), path=path, score=score, text=passage.text, patient=passage.patient,
                   metadata={**passage.metadata, "record_id": passage.record_id},
                   digest=evidence(passage.body, passage.patient, per_patient), similarity=similarity,
                   bm25=bm25, sentence=sentence)


def intersection(hits: list[Hit], central: list[Hit]) -> float:
    """|federated ∩ centralized| / |centralized| over (leaf path, passage id) (1.0 when both are empty)."""
    if not central:
        return 1.0 if not hits else 0.0
    federated = {(hit.path, hit.id) for hit in hits}
    return len(federated & {(hit.path, hit.id) for hit in central}) / len(central)
