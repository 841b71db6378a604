"""A leaf's storage: records, passages and their vectors in SQLite, and an hnswlib index beside it.

Layout of a leaf's folder (``<state_dir>/leaves/<path>/``)::

    leaf.sqlite   records (text, patient, date, metadata, digest, origin), passages (text, metadata and
                  the float32 vector, under a stable label), the log of index changes, settings
                  (the tables: :mod:`nodes.data._sqlite`)
    index.hnsw    the hnswlib index of the live passages, labels = passage labels
    index.json    the last logged change the saved index includes, its dead slots and the slots it reused

SQLite (WAL, ``synchronous=FULL``) is the truth. Every change — a batch of upserts and deletes by
record id — commits in one transaction, and only then does the index in memory follow (hnswlib marks
replaced passages deleted and reuses their slots), so a query sees it at once, without a rebuild.
The saved index may lag behind: when a leaf opens, it replays the changes logged after the saved
index, or rebuilds the index from the stored vectors if the index file is missing or unreadable — a
leaf killed at any point comes back with exactly the committed records, and never embeds again what
it stored. When too many slots are dead or were reused the index is rebuilt (:meth:`LeafStore.compact`).

Labels come from an AUTOINCREMENT counter and are never reused. This module opens the store, keeps
the index in step with SQLite, saves it and reads; changing the records (``apply``, ``sync_file``,
``refresh``, and the :class:`~nodes.data.writes.Outcome` they return) is :mod:`nodes.data.writes`.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from bus.errors import StoreError
from nodes.data import _lexicon, _sentences, lexical, readings
from nodes.data._files import replacing
from nodes.data._sqlite import connect, read_settings, text_digest, transaction
from nodes.data.chunking import CHUNKER_VERSION, DEFAULT_MAX_CHARS, Passage
from nodes.data.index import VectorIndex, exact_scores
from nodes.data.records import Record, patient_key, surname_of
from nodes.data.writes import BATCH, StoreWrites

log = logging.getLogger(__name__)

#: How many passages (with their vectors) a store keeps in memory for scoring (:meth:`LeafStore.scored`): a
#: passage under a label never changes (labels are never reused), so what a search read once is not read again.
CACHED_PASSAGES = 20_000
#: How many postings (a term's passage and its frequency there) a store keeps in memory for the lexical index, the
#: terms of recent questions first (:meth:`LeafStore.term_stats`, :meth:`LeafStore.term_columns`). They are
#: forgotten when the index follows a change, so lexical search sees what dense search does.
CACHED_POSTINGS = 250_000
#: At most how many postings :meth:`LeafStore.term_stats_at_hand` counts (a few milliseconds of sets, at most).
AT_HAND_POSTINGS = 20_000
#: How many sentence vectors a store keeps in memory, by passage, for hybrid questions (:meth:`LeafStore.best_sentences`).
CACHED_SENTENCES = 40_000
#: How many questions' names the store remembers the patients of (:meth:`LeafStore.known_patients`) until a write.
KNOWN_NAMES = 4_096

#: A surname a title may stand before in a question: letters, inside it hyphens or apostrophes (no LIKE wildcard).
_SURNAME = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")

#: Bumped when the saved layout changes.
STORE_FORMAT = 3
#: Rebuild the index when its dead and reused slots exceed this share of the live ones (and :data:`MIN_DEAD`).
DEAD_SHARE = 0.25
MIN_DEAD = 500


class LeafStore(StoreWrites):
    """Records and passages of one leaf, and its index. Use :meth:`open`.

    The methods that change it (:meth:`apply`, :meth:`sync_file`, :meth:`refresh`, :meth:`synced`,
    :attr:`stale`) come from :class:`~nodes.data.writes.StoreWrites`.
    """

    def __init__(self, folder: Path, db: sqlite3.Connection, fingerprint: str, dim: int, max_chars: int) -> None:
        self.folder = folder
        self._db = db
        self._lock = threading.RLock()
        self.fingerprint = fingerprint
        self.max_chars = max_chars
        self.index = VectorIndex(dim)
        self._applied = 0  # the last logged change the index in memory includes
        self._cached: OrderedDict[int, tuple[Passage, np.ndarray]] = OrderedDict()  # label -> passage, vector (LRU)
        # (text, patient) of a passage -> its sentences' vectors
        self._sentence_rows: OrderedDict[tuple[str, str | None], np.ndarray | None] = OrderedDict()
        self._sentences_cached = 0
        self._metadata: dict[int, dict] = {}  # label -> its metadata with its record_id, as policies judge them
        self._postings: OrderedDict[str, dict[int, int]] = OrderedDict()  # term -> label -> frequency (LRU)
        self._posted = 0  # how many postings that holds
        self._lengths: dict[int, int] = {}  # label -> its length in terms
        # term -> its postings as columns (what BM25 reads), for terms in _postings and forgotten with them (about
        # three times their size again, outside CACHED_POSTINGS' count)
        self._columns: dict[str, lexical.Columns] = {}
        self._totals: tuple[int, int, int] | None = None  # passages, their length, those of a patient (forgotten with postings)
        self._measured: dict[readings.Finding, frozenset[int]] = {}  # a finding -> the passages a reading writes it in (likewise)
        self._patients_named: dict[tuple[tuple[str, str], ...], list[str]] = {}  # names asked -> the patients they answer to

    # -- opening ---------------------------------------------------------------------------------

    @classmethod
    def open(cls, folder: Path, fingerprint: str, dim: int, *, max_chars: int = DEFAULT_MAX_CHARS) -> "LeafStore":
        """Opens the leaf's store (creating an empty one) and brings its index up to date, without embedding.

        If the store was built with another embedding model or chunker, its passages are dropped
        (the records stay) and :meth:`refresh` must cut and embed them again.

        Raises:
            StoreError: the database cannot be opened or is not a leaf store.
        """
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        store = cls(folder, connect(folder / "leaf.sqlite"), fingerprint, dim, max_chars)
        settings = store._settings()
        fresh = not settings
        wanted = {"format": str(STORE_FORMAT), "fingerprint": fingerprint, "dim": str(dim),
                  "chunker": f"{CHUNKER_VERSION}:{max_chars}"}
        if fresh or any(settings.get(k) != v for k, v in wanted.items()):
            if not fresh:
                log.warning("%s: stored with %s, now %s: its records will be cut and embedded again", folder,
                            {k: settings.get(k) for k in wanted}, wanted)
            with store._transaction() as db:
                db.execute("DELETE FROM passages")
                db.execute("DELETE FROM changes")
                db.execute("DELETE FROM sentences")
                _sentences.filled(db)  # the passages cut and embedded again bring their sentences
                db.executemany("INSERT OR REPLACE INTO settings VALUES (?, ?)", list(wanted.items()))
                db.execute("INSERT OR REPLACE INTO settings VALUES ('stale', ?)", ("0" if fresh else "1",))
            for name in ("index.hnsw", "index.json"):
                (folder / name).unlink(missing_ok=True)
        with store._transaction() as db:
            if _lexicon.reindex(db):
                log.info("%s: passages indexed by their words (%s)", folder, _lexicon.SETTING)
        store._load_index()
        return store

    @classmethod
    def existing(cls, folder: Path) -> "LeafStore":
        """Opens a store a leaf has already built, with the model and chunker it was built with.

        Raises:
            StoreError: there is no built store in ``folder``.
        """
        path = Path(folder) / "leaf.sqlite"
        if not path.exists():
            raise StoreError(f"no leaf store in {folder}: start the federation once to build it")
        settings = read_settings(path)
        if "fingerprint" not in settings:
            raise StoreError(f"{path} was never built")
        max_chars = int(settings.get("chunker", f":{DEFAULT_MAX_CHARS}").rsplit(":", 1)[1])
        return cls.open(folder, settings["fingerprint"], int(settings["dim"]), max_chars=max_chars)

    def _settings(self) -> dict[str, str]:
        with self._lock:
            return dict(self._db.execute("SELECT key, value FROM settings").fetchall())

    def _transaction(self):
        """``with store._transaction() as db:`` — one write transaction, under the store's lock."""
        return transaction(self._db, self._lock)

    # -- the index, in step with SQLite ----------------------------------------------------------

    def _load_index(self) -> None:
        """The saved index plus the changes logged after it, or a rebuild from the stored vectors."""
        with self._lock:
            last = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM changes").fetchone()[0]
            log_start = int(self._settings().get("log_start", "0"))
            count = self._db.execute("SELECT COUNT(*) FROM passages").fetchone()[0]
        try:
            meta = json.loads((self.folder / "index.json").read_text())
            if meta.get("seq", -1) < log_start or meta.get("seq", 0) > last and last:
                raise ValueError("the saved index does not match the change log")
            index = VectorIndex.load(self.folder / "index.hnsw", self.index.dim, dead=int(meta.get("dead", 0)),
                                     reused=int(meta.get("reused", 0)))
            self.index, self._applied = index, int(meta["seq"])
            self._replay()
            if len(self.index) != count:
                raise ValueError(f"index holds {len(self.index)} passages, the store {count}")
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            if count or (self.folder / "index.json").exists():
                log.warning("%s: rebuilding the index from the stored vectors (%s)", self.folder, exc)
            self._rebuild()

    def _replay(self) -> None:
        with self._lock:
            rows = self._db.execute("SELECT seq, label, op FROM changes WHERE seq > ? ORDER BY seq",
                                    (self._applied,)).fetchall()
            live = {label for (label,) in self._db.execute("SELECT label FROM passages")} if rows else set()
        for seq, label, op in rows:
            if op == "add" and label in live:
                self.index.add(self._vectors([label]), np.asarray([label]))
            elif op == "delete":
                self.index.delete([label])
            self._applied = seq

    def _rebuild(self) -> None:
        with self._lock:
            labels = [label for (label,) in self._db.execute("SELECT label FROM passages ORDER BY label")]
            last = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM changes").fetchone()[0]
            index = VectorIndex(self.index.dim, capacity=len(labels))
            for start in range(0, len(labels), 4096):
                chunk_labels = labels[start:start + 4096]
                index.add(self._vectors(chunk_labels), np.asarray(chunk_labels))
            self.index, self._applied = index, last
        self.save_index()

    def _follow(self, gone: list[int], added: list[tuple[int, np.ndarray]], last: int) -> None:
        """Has the index in memory follow a committed change: ``gone`` labels deleted, ``added`` (label,
        vector) pairs added, the change log applied up to ``last``; compacts it if too many slots are dead."""
        self.index.delete(gone)
        with self._lock:
            for label in gone:
                self._cached.pop(label, None)
                self._lengths.pop(label, None)
                self._forget_sentences(label)
            if gone or added:
                self._postings.clear()
                self._columns.clear()
                self._posted = 0
                self._totals = None
                self._measured.clear()
                self._patients_named.clear()
        if added:
            self.index.add(np.stack([v for _, v in added]), np.asarray([label for label, _ in added]))
        self._applied = last
        if self.index.dead + self.index.reused > max(MIN_DEAD, DEAD_SHARE * len(self.index)):
            self.compact()

    def compact(self) -> None:
        """Rebuilds the index from the stored vectors, dropping its dead slots and the links its reused ones kept."""
        log.info("%s: compacting the index (%d dead slots, %d reused, %d live)", self.folder, self.index.dead,
                 self.index.reused, len(self.index))
        self._rebuild()
        with self._transaction() as db:
            _sentences.prune(db)

    def save_index(self) -> None:
        """Saves the index and forgets the logged changes it includes (atomically: a crash leaves a usable pair)."""
        with self._lock:
            applied, dead, reused = self._applied, self.index.dead, self.index.reused
            self.index.save(self.folder / "index.hnsw")
            with replacing(self.folder / "index.json") as tmp:
                tmp.write_text(json.dumps({"format": STORE_FORMAT, "seq": applied, "dead": dead, "reused": reused,
                                      "count": len(self.index)}))
            with self._transaction() as db:
                db.execute("DELETE FROM changes WHERE seq <= ?", (applied,))
                db.execute("INSERT OR REPLACE INTO settings VALUES ('log_start', ?)", (str(applied),))

    # -- reading ---------------------------------------------------------------------------------

    def __len__(self) -> int:
        """Live passages."""
        return len(self.index)

    @contextmanager
    def _at_hand(self) -> Iterator[bool]:
        """``with self._at_hand() as now:`` — whether no write holds the store (its lock is free: it is then held, so
        that none starts meanwhile), for what an event loop may ask of it without waiting."""
        if not self._lock.acquire(blocking=False):
            yield False
            return
        try:
            yield True
        finally:
            self._lock.release()

    def records(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM records").fetchone()[0]

    def passages(self, labels) -> dict[int, Passage]:
        """The passages stored under ``labels``."""
        labels = [int(label) for label in labels]
        if not labels:
            return {}
        marks = ",".join("?" * len(labels))
        with self._lock:
            rows = self._db.execute(
                f"SELECT label, id, record_id, text, patient, date, section, metadata FROM passages WHERE label IN ({marks})",
                labels).fetchall()
        return {row[0]: Passage(row[1], row[2], row[3], row[4], row[5], row[6], json.loads(row[7])) for row in rows}

    def labels_of_patients(self, names: list[str]) -> list[int]:
        """The labels of every passage about one of ``names``."""
        keys = [patient_key(n) for n in names if n.strip()]
        marks = ",".join("?" * len(keys))
        with self._lock:
            rows = self._db.execute(f"SELECT label FROM passages WHERE patient_key IN ({marks})", keys).fetchall()
        return [row[0] for row in rows]

    def labels_of_passages(self, ids: list[str]) -> list[int]:
        """The labels of the passages ``ids``."""
        marks = ",".join("?" * len(ids))
        with self._lock:
            rows = self._db.execute(f"SELECT label FROM passages WHERE id IN ({marks})", ids).fetchall()
        return [row[0] for row in rows]

    def sentence_vectors(self, sentences: list[str]) -> np.ndarray | None:
        """The vectors of ``sentences`` stored at ingestion, one row each, or ``None`` if some is not stored
        (:mod:`nodes.data._sentences`)."""
        with self._lock:
            return _sentences.vectors(self._db, sentences, self.index.dim)

    def sentence_rows(self, passages: list[tuple[str, str | None]]) -> list[np.ndarray | None]:
        """For each passage (its text and patient), the vectors of its quotable sentences stored at ingestion, one row
        each (``None`` for a passage with no sentence, or one not stored). A passage's sentences follow from its text
        and patient alone, so the vectors are kept by those for the next search (:data:`CACHED_SENTENCES`); shared:
        not to be changed."""
        with self._lock:
            known = {key: self._sentence_rows[key] for key in passages if key in self._sentence_rows}
            for key in known:
                self._sentence_rows.move_to_end(key)
        for key in passages:
            if key not in known:
                said = _sentences.weighed(*key)
                with self._lock:
                    rows = _sentences.vectors(self._db, said, self.index.dim) if said else None
                    self._sentence_rows[key] = known[key] = rows
                    self._sentences_cached += 0 if rows is None else len(rows)
                    while self._sentences_cached > CACHED_SENTENCES and len(self._sentence_rows) > 1:
                        self._forget_sentences(next(iter(self._sentence_rows)))
        return [known[key] for key in passages]

    def sentence_rows_at_hand(self, passages: list[tuple[str, str | None]]) -> list[np.ndarray | None] | None:
        """:meth:`sentence_rows`, if memory holds every passage's and they can be had at once: ``None`` while a write
        holds the store, or when one would be read. What a router weighs on its event loop
        (:func:`nodes.leaf.weigh_here`)."""
        with self._at_hand() as now:
            if not now or any(key not in self._sentence_rows for key in passages):
                return None
            for key in passages:
                self._sentence_rows.move_to_end(key)
            return [self._sentence_rows[key] for key in passages]

    def _forget_sentences(self, key: tuple[str, str | None]) -> None:
        rows = self._sentence_rows.pop(key, None)
        self._sentences_cached -= 0 if rows is None else len(rows)

    @staticmethod
    def weighed(passage: Passage) -> list[str]:
        """The sentences of ``passage`` whose vectors are stored (its quotable ones), in order."""
        return _sentences.weighed(passage.text, passage.patient)

    @staticmethod
    def sentence_key(sentence: str) -> str:
        """What a sentence's vector is stored under (:meth:`all_sentence_vectors`)."""
        return text_digest(sentence)

    def all_sentence_vectors(self) -> dict[str, np.ndarray]:
        """Every stored sentence vector, by :meth:`sentence_key` (to build a copy of the store without embedding)."""
        with self._lock:
            return _sentences.every(self._db)

    def labels_of_records(self, record_ids: list[str]) -> list[int]:
        """The labels of every passage of the records ``record_ids``."""
        marks = ",".join("?" * len(record_ids))
        with self._lock:
            rows = self._db.execute(f"SELECT label FROM passages WHERE record_id IN ({marks})", record_ids).fetchall()
        return [row[0] for row in rows]

    def known_patients(self, names: list[str]) -> list[str]:
        """Those of ``names`` (as given) that some passage of this store is about; for a given name alone ("Joseph",
        :func:`nodes.names.given_names`), every patient of that first name it holds, and for a title and a surname
        ("Mrs. Wright", :func:`nodes.names.titled_surnames`) every patient of that surname, by their full names — the
        patients each name answers to (:func:`nodes.data.records.answers_to`, here in SQL)."""
        keys = {patient_key(n): n for n in names if n.strip()}
        if not keys:
            return []
        asked = tuple(keys.items())
        marks = ",".join("?" * len(keys))
        with self._lock:
            if asked in self._patients_named:  # asked before, and nothing was written since
                return list(self._patients_named[asked])
            rows = self._db.execute(f"SELECT DISTINCT patient_key FROM passages WHERE patient_key IN ({marks})",
                                    list(keys)).fetchall()
            found = {row[0] for row in rows}
            known = [name for key, name in keys.items() if key in found]
            for key in keys:
                surname = surname_of(key)
                if (" " not in key and key.isalpha()) or (surname and _SURNAME.fullmatch(surname)):
                    pattern = "% " + surname if surname else key + " %"
                    rows = self._db.execute("SELECT DISTINCT patient FROM passages WHERE patient_key LIKE ? "
                                            "ORDER BY patient_key", (pattern,)).fetchall()
                    known += [row[0] for row in rows if row[0] not in known]
            if len(self._patients_named) >= KNOWN_NAMES:
                self._patients_named.clear()
            self._patients_named[asked] = known
        return list(known)

    def term_stats(self, terms: list[str], concepts: list[list[list[str]]],
                   visible: Callable[[dict], bool] | None = None) -> tuple[int, int, dict[str, int], list[int], int]:
        """What the passages a caller may see hold of a question's words: how many passages, their total length,
        how many hold each of ``terms``, how many mention each concept (all the terms of one of its
        alternatives, and its specifier written as one: :func:`nodes.data.lexical.written_together`; or a reading of
        the finding it names: :func:`nodes.data.readings.said`), and how many are about a patient. ``visible``
        judges a passage by its metadata; ``None``: every passage is visible."""
        findings = [readings.finding(concept) for concept in concepts]
        needed = sorted(_needed(terms, concepts, findings))
        with self._lock:
            within = None if visible is None else _lexicon.visible_labels(self._db, visible, self._metadata)
            if within is None:
                if self._totals is None:
                    self._totals = _lexicon.totals(self._db, None)
                docs, length, people = self._totals
            else:
                docs, length, people = _lexicon.totals(self._db, within)
            postings = self._term_postings(needed)

        def seen(labels: set[int]) -> int:
            return len(labels if within is None else labels & within)

        df = {term: seen(set(postings[term])) for term in dict.fromkeys(terms)}
        mentions = []
        for concept, measured in zip(concepts, findings):
            holding: set[int] = set()
            for option in concept:
                found = set.intersection(*(set(postings[term]) for term in lexical.held_terms(option)))
                if found and lexical.read_in_text(option):  # read whether the passage writes it so
                    ordered = sorted(found)
                    found = {label for start in range(0, len(ordered), 500)
                             for label, passage in self.passages(ordered[start:start + 500]).items()
                             if lexical.written_together(passage.text, option)}
                holding |= found
            if measured is not None:
                holding |= self._measuring(measured, postings)
            mentions.append(seen(holding))
        return docs, length, df, mentions, people

    def _measuring(self, found: readings.Finding, postings: dict[str, dict[int, int]]) -> frozenset[int]:
        """The passages whose readings write ``found`` (:func:`nodes.data.readings.said`): those holding a name of
        its measure (``postings`` holds their terms'), their text read once until the store changes."""
        with self._lock:
            known, version = self._measured.get(found), self._applied
        if known is None:
            ordered = sorted(set().union(*(set.intersection(*(set(postings[term]) for term in name))
                                           for name in found.measure.terms)))
            known = frozenset(label for start in range(0, len(ordered), 500)
                              for label, passage in self.passages(ordered[start:start + 500]).items()
                              if readings.said(passage.text, found))
            with self._lock:
                if self._applied == version:  # no write came between: what was read holds
                    self._measured[found] = known
        return known

    def term_stats_at_hand(self, terms: list[str],
                           concepts: list[list[list[str]]]) -> tuple[int, int, dict[str, int], list[int], int] | None:
        """:meth:`term_stats` of every passage, if memory holds what it needs and it can be had at once: ``None`` while a
        write holds the store (its lock is taken), or when it would read the database (a term's postings or the
        totals not held, a specifier or readings not yet read to read in the passages' text) or count more than
        :data:`AT_HAND_POSTINGS`.
        What a leaf answers on its event loop instead of a worker thread (:meth:`nodes.leaf.Leaf.handle`)."""
        with self._at_hand() as now:
            if not now:
                return None
            findings = [found for concept in concepts if (found := readings.finding(concept)) is not None]
            needed = _needed(terms, concepts, findings)
            if (self._totals is None or any(term not in self._postings for term in needed)
                    or any(lexical.read_in_text(option) for concept in concepts for option in concept)
                    or any(found not in self._measured for found in findings)
                    or sum(len(self._postings[term]) for term in needed) > AT_HAND_POSTINGS):
                return None
            return self.term_stats(terms, concepts)

    def _term_postings(self, terms: list[str]) -> dict[str, dict[int, int]]:
        """Each of ``terms``' postings, from memory or read (under the lock) — a group's its members' added up
        (:func:`nodes.data.lexical.group`), kept as a term's are; shared: not to be changed."""
        missing = [term for term in terms if term not in self._postings]
        read = list(dict.fromkeys(part for term in missing for part in lexical.parts(term) if part not in self._postings))
        if read:
            for term, found in _lexicon.postings(self._db, read).items():
                self._postings[term] = found
                self._posted += len(found)
        for term in missing:
            if lexical.GROUP in term:
                found = {}
                for part in lexical.parts(term):
                    for label, tf in self._postings[part].items():
                        found[label] = found.get(label, 0) + tf
                self._postings[term] = found
                self._posted += len(found)
        for term in terms:
            self._postings.move_to_end(term)
        wanted = {term: self._postings[term] for term in terms}
        while self._posted > CACHED_POSTINGS and len(self._postings) > len(wanted):
            term, found = self._postings.popitem(last=False)
            self._columns.pop(term, None)
            self._posted -= len(found)
        return wanted

    def term_columns(self, terms: list[str]) -> dict[str, lexical.Columns]:
        """Each of ``terms``' postings as columns (:data:`nodes.data.lexical.Columns`: the labels of the passages
        holding it, ascending, how often each holds it, and each one's length), kept with the postings; shared:
        not to be changed."""
        terms = list(dict.fromkeys(terms))
        with self._lock:
            postings = self._term_postings(terms)
            missing = [term for term in terms if term not in self._columns]
            unknown = list({label for term in missing for label in postings[term] if label not in self._lengths})
            if unknown:
                self._lengths.update(_lexicon.lengths(self._db, unknown))
            for term in missing:
                labels = sorted(postings[term])
                self._columns[term] = (np.asarray(labels, dtype=np.int64),
                                       np.asarray([postings[term][label] for label in labels], dtype=np.float64),
                                       np.asarray([self._lengths.get(label, 0) for label in labels], dtype=np.float64))
            return {term: self._columns[term] for term in terms}

    def scored(self, labels, vector: np.ndarray) -> list[tuple[int, Passage, float, np.ndarray]]:
        """The passages under ``labels`` (each with its label) with their exact scores for ``vector`` (see
        :func:`nodes.data.index.exact_scores`) and their stored vectors. The passages are shared (kept for the
        next search, :data:`CACHED_PASSAGES`): not to be changed."""
        labels = [int(label) for label in labels]
        with self._lock:
            known = {label: self._cached[label] for label in labels if label in self._cached}
            for label in known:
                self._cached.move_to_end(label)
        missing = [label for label in labels if label not in known]
        if missing:
            found = self.passages(missing)
            read = [label for label in missing if label in found]
            if read:
                known.update((label, (found[label], row)) for label, row in zip(read, self._vectors(read)))
                with self._lock:
                    # a label deleted meanwhile may be kept: nothing asks for it again (the index and the patients'
                    # labels no longer hold it), and the LRU lets it go
                    for label in read:
                        self._cached[label] = known[label]
                    while len(self._cached) > CACHED_PASSAGES:
                        self._cached.popitem(last=False)
        labels = [label for label in labels if label in known]
        if not labels:
            return []
        vectors = np.stack([known[label][1] for label in labels])
        scores = exact_scores(vectors, vector)
        return [(label, known[label][0], float(score), row) for label, score, row in zip(labels, scores, vectors)]

    def iter_records(self) -> Iterable[Record]:
        """Every stored record, in id order."""
        with self._lock:
            ids = [row[0] for row in self._db.execute("SELECT id FROM records ORDER BY id")]
        for start in range(0, len(ids), BATCH):
            yield from sorted((r for r, _ in self._stored_records(ids[start:start + BATCH])), key=lambda r: r.id)

    def _stored_records(self, ids: list[str]) -> list[tuple[Record, str]]:
        """The stored records with ``ids``, each with its origin (in no particular order)."""
        marks = ",".join("?" * len(ids))
        with self._lock:
            rows = self._db.execute(f"SELECT id, text, patient, date, metadata, origin FROM records WHERE id IN ({marks})",
                                    ids).fetchall()
        return [(Record(r[0], r[1], r[2], r[3], json.loads(r[4])), r[5]) for r in rows]

    def labels(self) -> list[int]:
        """Every live passage's label, in order."""
        with self._lock:
            return [row[0] for row in self._db.execute("SELECT label FROM passages ORDER BY label")]

    def all_vectors(self) -> tuple[list[Passage], np.ndarray]:
        """Every passage with its vector, in label order (for the centralized baseline)."""
        labels = self.labels()
        found = self.passages(labels)
        vectors = self._vectors(labels) if labels else np.empty((0, self.index.dim), dtype=np.float32)
        return [found[label] for label in labels], vectors

    def _vectors(self, labels: list[int]) -> np.ndarray:
        """The stored vectors of ``labels``, in that order."""
        labels = [int(label) for label in labels]
        marks = ",".join("?" * len(labels))
        with self._lock:
            rows = dict(self._db.execute(f"SELECT label, vector FROM passages WHERE label IN ({marks})", labels).fetchall())
        return np.stack([np.frombuffer(rows[label], dtype="<f4") for label in labels])

    # -- closing ---------------------------------------------------------------------------------

    def close(self) -> None:
        """Saves the index if it moved since the last save, and closes the database."""
        with self._lock:
            try:
                pending = self._db.execute("SELECT COUNT(*) FROM changes").fetchone()[0]
            except sqlite3.ProgrammingError:
                return  # already closed
        if pending:
            self.save_index()
        with self._lock:
            self._db.close()


def _needed(terms: list[str], concepts: list[list[list[str]]], findings: list[readings.Finding | None]) -> set[str]:
    """The terms whose postings count ``terms`` and ``concepts`` (every term an alternative must hold, and those a
    passage measuring one of the ``findings`` they name holds)."""
    return (set(terms) | {term for concept in concepts for option in concept for term in lexical.held_terms(option)}
            | {term for found in findings if found is not None for name in found.measure.terms for term in name})
