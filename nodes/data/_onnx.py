"""The embedding model as an ONNX Runtime graph: exported once from the packaged weights, then only run.

ONNX Runtime embeds one question in about half the time torch takes on a 2-core CPU (3.0 ms against
5.6), batches of long passages about as fast, and gives the same vectors to within 2.5e-7; a process
that only runs the graph never imports torch. The graph is exported with torch from the weights the package
ships (nothing is downloaded), once per machine, into :func:`cache_folder`; the file is named by
the weights' digest and the torch version that wrote it, and written whole or not at all, so
processes starting together export it once and never read half a file.
"""

from __future__ import annotations

import fcntl
import logging
import os
import tempfile
import warnings
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

#: The graph's inputs and output, as :func:`export` names them.
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT = "last_hidden_state"
OPSET = 17


def cache_folder() -> Path:
    """Where exported graphs are kept: ``$FEDRAG_MODEL_CACHE``, else ``$XDG_CACHE_HOME/fedrag``, else
    ``~/.cache/fedrag``."""
    if os.environ.get("FEDRAG_MODEL_CACHE"):
        return Path(os.environ["FEDRAG_MODEL_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "fedrag"


def graph_file(path: Path, digest: str, *, unless: Path | None = None) -> Path:
    """The packaged model's graph, exported on first use (see the module's docstring); exported again if it is
    ``unless`` (a file that would not load)."""
    from importlib.metadata import version

    name = f"{path.name}-{digest}-torch{version('torch').split('+')[0]}-opset{OPSET}.onnx"
    folder = cache_folder()
    if (folder / name).exists() and folder / name != unless:  # read-only is fine once it is there
        return folder / name
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not os.access(folder, os.W_OK):
            raise PermissionError("not writable")
    except OSError as exc:  # a home one may not write to: the machine's temporary folder, with a warning
        fallback = Path(tempfile.gettempdir()) / f"fedrag-{os.getuid()}"
        log.warning("cannot write %s (%s): exporting the embedding model's graph into %s", folder, exc, fallback)
        folder = fallback
        folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    with open(folder / f"{name}.lock", "w") as lock:
        # another process exporting it: wait for its file (in the fallback folder it may be there already)
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target == unless:
            target.unlink(missing_ok=True)
        if not target.exists():
            fd, partial = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".part")
            os.close(fd)
            try:
                export(path, Path(partial))
                os.chmod(partial, 0o644)
                os.replace(partial, target)
            finally:
                Path(partial).unlink(missing_ok=True)
    return target


def export(path: Path, out: Path) -> None:
    """Writes the model of ``path`` as an ONNX graph of the token vectors, batch and length left free."""
    import torch
    from transformers import AutoModel
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    # eager attention exports as plain matrix products, which ONNX Runtime runs as fast as torch on long
    # passages; torch's fused attention exported as a graph about 30 % slower there
    model = AutoModel.from_pretrained(str(path), local_files_only=True, attn_implementation="eager").eval()

    class TokenVectors(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.model(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    example = torch.ones((2, 8), dtype=torch.int64)
    axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, OUTPUT)}
    # the exporter's deprecation and tracing notes say nothing about this graph: its one traced branch (padding
    # longer than the mask) never holds here, and the vectors are checked against torch's (tests, scripts/embedder_check.py)
    with torch.inference_mode(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(TokenVectors(), (example, example, torch.zeros_like(example)), str(out),
                          input_names=list(INPUTS), output_names=[OUTPUT], dynamic_axes=axes,
                          opset_version=OPSET, dynamo=False)


class OnnxModel:
    """Token vectors of tokenized texts from the exported graph (ONNX Runtime, CPU)."""

    def __init__(self, path: Path, digest: str, max_tokens: int, threads: int) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads > 0:
            options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # threads that spin while waiting for work would take the cores from the other processes of a federation
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        graph = graph_file(path, digest)
        try:
            self._session = ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own kinds for a damaged file
            log.warning("%s would not load (%s): exporting it again", graph, str(exc)[:200])
            graph = graph_file(path, digest, unless=graph)
            self._session = ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
        self._tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_tokens)
        self._tokenizer.enable_padding()  # to the batch's longest text (the file asks for a fixed 128)

    def __call__(self, texts: list[str]) -> np.ndarray:
        """Mean-pooled, L2-normalized vectors of ``texts``."""
        encoded = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        tokens = self._session.run([OUTPUT], {"input_ids": ids, "attention_mask": mask,
                                              "token_type_ids": np.zeros_like(ids)})[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (tokens * weights).sum(1) / np.maximum(weights.sum(1), 1e-9)
        return (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)
