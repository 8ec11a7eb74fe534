"""The embedding model on ONNX Runtime: exported once from the local weights, int8-quantised, cached.

Why not sentence-transformers' own ONNX backend: it goes through ``optimum-onnx``, which would downgrade the
installed transformers and huggingface_hub. ``torch.onnx.export`` plus ``onnxruntime.quantization`` need neither.

- The export reads only the local model folder (never a hub) and is written under ``NEPAQA_HOME/models`` once per
  model and machine; later processes load the cached file and never import torch or transformers.
- Quantisation is int8 dynamic, **per channel** (measured here: cosine to the torch vectors 0.994 mean; per tensor
  was 0.944, so it is not offered).
- Tokenising uses the model's own ``tokenizer.json`` through the ``tokenizers`` library, so token counts are the
  same as the torch path's.
- Pooling and normalising follow the model's sentence-transformers config (mean of the token vectors, unit length).
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import queue
import shutil
import tempfile
import time
import warnings
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from lib.core import config
from lib.core.errors import UserError
from lib.core.progress import FractionProgressFn

BACKENDS = ("onnx-int8", "onnx", "torch")
EXPORT_VERSION = 1  # bump when the export recipe changes, so caches are rebuilt
OPSET = 17
WINDOW = 256  # texts tokenised at a time
# MatMuls the int8 quantiser leaves in fp32 (name fragments). Measured (bench/ingest.py, bench/retrieval.py; one
# text per batch, two sessions, 2 cores): every MatMul int8 gives 95 chunks/s at cosine 0.993 to the torch vectors
# (sample: 0.9945 mean, 0.975 min); keeping the FFN outputs of layers 0 and 2 in fp32 gives 79/s at 0.9954
# (0.9966 / 0.9925). Hybrid hit@3 moved by one or two questions on a few sets either way, up and down, so the
# faster one is the default; the knob stays for a model that needs it.
KEEP_FP32: tuple[str, ...] = ()


def model_files_ok(folder: Path) -> bool:
    """Whether a folder holds what this backend needs: a BERT-style model with mean pooling and tokenizer.json."""
    pooling = folder / "1_Pooling" / "config.json"
    if not (folder / "tokenizer.json").exists() or not (folder / "config.json").exists():
        return False
    if pooling.exists():
        cfg = json.loads(pooling.read_text())
        return bool(cfg.get("pooling_mode_mean_tokens")) and not any(
            cfg.get(k) for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens"))
    return True


def cache_folder(model_dir: Path, backend: str) -> Path:
    """Where the exported model for this model folder lives. The key changes with the weights' size and time, so a
    reinstalled or different model is exported afresh."""
    weights = next((p for p in (model_dir / "model.safetensors", model_dir / "pytorch_model.bin") if p.exists()), None)
    stamp = f"{model_dir.resolve()}|{EXPORT_VERSION}|{OPSET}|{','.join(KEEP_FP32)}"
    if weights is not None:
        st = weights.stat()
        stamp += f"|{st.st_size}|{st.st_mtime_ns}"
    key = hashlib.sha256(stamp.encode()).hexdigest()[:16]
    root = Path(config.get("NEPAQA_MODEL_CACHE") or config.paths().home / "models")
    return root / f"{model_dir.name}-{key}" / backend


def export(model_dir: Path, backend: str) -> tuple[Path, float]:
    """The cached ONNX file for ``backend``, exporting it first if needed. Returns (path, seconds spent now)."""
    target = cache_folder(model_dir, backend)
    onnx_path = target / "model.onnx"
    if onnx_path.exists():
        return onnx_path, 0.0
    started = time.perf_counter()
    target.parent.mkdir(parents=True, exist_ok=True)
    # Build in a private folder and move it into place, so a crash or a second process never sees half a file.
    work = Path(tempfile.mkdtemp(prefix=".export-", dir=target.parent))
    try:
        fp32 = work / "fp32.onnx"
        _export_fp32(model_dir, fp32)
        final = work / "model.onnx"
        if backend == "onnx-int8":
            import onnx  # heavy: imported on first use, off start-up
            from onnxruntime.quantization import (  # heavy: imported on first use, off start-up
                QuantType,
                quantize_dynamic,
            )

            keep = [n.name for n in onnx.load(str(fp32), load_external_data=False).graph.node
                    if n.op_type == "MatMul" and any(f in n.name for f in KEEP_FP32)]
            with _quiet():  # its advice to pre-process applies to image models, not to this one
                quantize_dynamic(str(fp32), str(final), per_channel=True, weight_type=QuantType.QInt8,
                                 nodes_to_exclude=keep)
            _keep_exact(fp32, model_dir)
        else:
            fp32.rename(final)
        (work / "export.json").write_text(json.dumps(
            {"model_dir": str(model_dir), "backend": backend, "opset": OPSET, "version": EXPORT_VERSION}))
        try:
            os.replace(work, target)
        except OSError:  # another process finished first: use theirs
            if not onnx_path.exists():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return onnx_path, time.perf_counter() - started


def _keep_exact(fp32: Path, model_dir: Path) -> None:
    """The fp32 file an int8 export starts from is the exact model scores compare meaning with (get_exact_embedder):
    put it in its own cache folder instead of exporting it a second time."""
    target = cache_folder(model_dir, "onnx")
    if (target / "model.onnx").exists():
        return
    work = Path(tempfile.mkdtemp(prefix=".export-", dir=target.parent))
    try:
        fp32.rename(work / "model.onnx")
        (work / "export.json").write_text(json.dumps(
            {"model_dir": str(model_dir), "backend": "onnx", "opset": OPSET, "version": EXPORT_VERSION}))
        os.replace(work, target)
    except OSError:  # another process put it there first
        pass
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _export_fp32(model_dir: Path, out: Path) -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    import torch  # heavy: imported on first use, off start-up
    import transformers  # heavy: imported on first use, off start-up
    from transformers import AutoModel, AutoTokenizer  # heavy: imported on first use, off start-up

    transformers.logging.set_verbosity_error()  # type: ignore[no-untyped-call]  # transformers leaves it unannotated
    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()
    tok = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    sample = tok(["an environmental impact statement", "a second, longer sentence to pad"], padding=True,
                 return_tensors="pt")
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in sample]
    axes = {n: {0: "batch", 1: "tokens"} for n in names} | {"last_hidden_state": {0: "batch", 1: "tokens"}}
    class Encoder(torch.nn.Module):  # keyword arguments in a fixed order, only the token vectors out
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *args: torch.Tensor) -> torch.Tensor:
            hidden: torch.Tensor = self.model(**dict(zip(names, args, strict=True))).last_hidden_state
            return hidden

    with torch.no_grad(), _quiet():
        torch.onnx.export(Encoder().eval(), tuple(sample[n] for n in names), str(out), input_names=names,
                          output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=OPSET, dynamo=False)


@contextmanager
def _quiet() -> Iterator[None]:
    """The exporter and the quantiser warn about tracing details that do not apply here; keep the console clean."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        root.setLevel(level)


class Tokens:
    """The model's fast tokenizer (tokenizer.json), called like the transformers tokenizer for what we use.

    Two instances, each configured once and never changed: one counts whole texts, one cuts them to the model's
    window for embedding. (One shared instance switched between the two settings gave wrong counts and
    over-long inputs when jobs and searches tokenise at the same time.)"""

    def __init__(self, model_dir: Path, max_len: int = 256) -> None:
        from tokenizers import Tokenizer  # heavy: imported on first use, off start-up

        self._count = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._count.no_truncation()
        self._count.no_padding()
        self._cut = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._cut.no_padding()
        self._cut.enable_truncation(max_length=max_len)
        self.max_len = max_len

    def __call__(self, texts: str | Sequence[str], add_special_tokens: bool = True, truncation: bool = False,
                 **_: object) -> dict[str, Any]:  # the shape of a Hugging Face tokenizer's: one text's ids, or a list
        one = isinstance(texts, str)
        enc = self._count.encode_batch([texts] if one else list(texts), add_special_tokens=add_special_tokens)
        ids = [e.ids for e in enc]
        return {"input_ids": ids[0] if one else ids}

    def input_ids(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Model inputs, one array of token ids per text: special tokens added, cut to the window. Tokenised
        ``WINDOW`` texts at a time and kept as arrays: the tokenizer's own results (tokens, offsets, masks) for a
        long document's thousands of chunks would take tens of MB for the ids alone."""
        out: list[np.ndarray] = []
        for i in range(0, len(texts), WINDOW):
            enc = self._cut.encode_batch(list(texts[i : i + WINDOW]), add_special_tokens=True)
            out += [np.asarray(e.ids, dtype=np.int64) for e in enc]
        return out

    def counts(self, texts: Sequence[str]) -> list[int]:
        """Each text's token count, whole (no special tokens, no cut), ``WINDOW`` texts at a time."""
        out: list[int] = []
        for i in range(0, len(texts), WINDOW):
            out += [len(e.ids) for e in self._count.encode_batch(list(texts[i : i + WINDOW]), add_special_tokens=False)]
        return out


class OnnxEmbedder:
    """The same sentence embeddings as the torch Embedder, from an ONNX file on ONNX Runtime."""

    def __init__(self, model_dir: str, name: str, backend: str = "onnx-int8", batch_size: int = 1,
                 threads: int | None = None, sort_by_length: bool = True, sessions: int | None = None) -> None:
        """``sessions`` ONNX Runtime sessions of ``threads`` threads each run batches side by side. Measured on
        2 cores (bench/ingest.py): two one-thread sessions beat one two-thread session (small BERT matrices
        leave a second thread idle much of the time).

        One text per batch is the default, and it matters beyond speed: dynamic int8 quantisation takes each
        activation's range over the whole batch (padding included), so in a batch a text's vector depends on
        its neighbours. Alone, every text gets the same vector wherever it is embedded (a query matches the
        same words in a document), and it is also the fastest and closest to torch (bench/ingest.py)."""
        folder = Path(model_dir)
        if backend not in ("onnx", "onnx-int8"):
            raise UserError(f"Unknown ONNX backend '{backend}'; use onnx-int8 or onnx.")
        if not model_files_ok(folder):
            raise UserError(f"The embedding model at '{folder}' cannot run on ONNX here (it needs tokenizer.json and "
                            "mean pooling). Set NEPAQA_EMBED_BACKEND=torch.")
        path, self.export_seconds = export(folder, backend)
        self.model_path = path  # the cached export: its folder names the weights and the recipe
        import onnxruntime as ort  # heavy: imported on first use, off start-up

        cores = os.cpu_count() or 1
        n_sessions = int(sessions or (1 if threads else cores))
        per_session = int(threads or max(1, cores // n_sessions))
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = per_session
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.log_severity_level = 3
        self.sessions = [ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
                         for _ in range(n_sessions)]
        self.session = self.sessions[0]
        self._inputs = {i.name for i in self.session.get_inputs()}
        st_cfg = folder / "sentence_bert_config.json"
        max_seq = int(json.loads(st_cfg.read_text()).get("max_seq_length", 256)) if st_cfg.exists() else 256
        self.name = name
        self.backend = backend
        self.tokenizer = Tokens(folder, max_seq)
        self.max_seq_length = max_seq
        self.max_tokens = max_seq - 2  # room for [CLS] and [SEP]
        self.dimension = int(json.loads((folder / "config.json").read_text()).get("hidden_size", 384))
        self.batch_size = batch_size
        self.sort_by_length = sort_by_length

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def count_tokens_many(self, texts: Sequence[str]) -> list[int]:
        return self.tokenizer.counts(texts)

    def _run(self, enc: list[np.ndarray], session: Any = None) -> np.ndarray:
        width = max(len(e) for e in enc)
        ids = np.zeros((len(enc), width), dtype=np.int64)
        mask = np.zeros((len(enc), width), dtype=np.int64)
        for r, e in enumerate(enc):
            ids[r, : len(e)] = e
            mask[r, : len(e)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden: np.ndarray = (session or self.session).run(["last_hidden_state"], feed)[0]
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        unit: np.ndarray = pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return unit

    def embed(self, texts: Sequence[str], batch_size: int | None = None, progress: FractionProgressFn | None = None) -> np.ndarray:
        """Unit-normalised embeddings, one row per text, in order. Texts are run in batches of similar length
        (less padding), and progress is reported after every batch."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        bs = int(batch_size or self.batch_size)
        enc = self.tokenizer.input_ids(texts)
        order = sorted(range(len(enc)), key=lambda i: -len(enc[i])) if self.sort_by_length else list(range(len(enc)))
        batches = [order[i : i + bs] for i in range(0, len(order), bs)]
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        done = 0
        if len(self.sessions) == 1 or len(batches) == 1:
            for rows in batches:
                out[rows] = self._run([enc[i] for i in rows])
                done += len(rows)
                if progress:
                    progress(done / len(texts), f"embedded {done}/{len(texts)} chunks")
            return out
        # Several sessions: each worker thread owns one session (ONNX Runtime releases the GIL while it runs).

        free: queue.SimpleQueue[Any] = queue.SimpleQueue()  # ONNX Runtime sessions (untyped)
        for sess in self.sessions:
            free.put(sess)

        def work(rows: list[int]) -> list[int]:
            sess = free.get()
            try:
                out[rows] = self._run([enc[i] for i in rows], sess)
            finally:
                free.put(sess)
            return rows

        pool = ThreadPoolExecutor(len(self.sessions))
        try:
            for fut in as_completed([pool.submit(work, rows) for rows in batches]):
                done += len(fut.result())
                if progress:  # from the caller's thread; a cancel or Ctrl-C raised here stops the rest at once
                    progress(done / len(texts), f"embedded {done}/{len(texts)} chunks")
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text]).reshape(-1)
