"""The ONNX embedder (the default) against the torch one it replaces: same tokens, near-same vectors, cached
export, and a clear path back to torch for models it cannot take."""
from __future__ import annotations

import json

import numpy as np
import pytest

from lib.core import config
from lib.core.errors import UserError
from lib.documents.chunking import chunk_pages
from lib.documents.pdf import read_pdf_file
from lib.models.embedding import Embedder, default_model_path, effective_backend, get_embedder
from lib.models.embedding_onnx import OnnxEmbedder, cache_folder, export


@pytest.fixture(scope="module")
def sample_texts() -> list[str]:
    torch_emb = Embedder()
    ex = read_pdf_file(str(config.SAMPLE_PDF), config.max_upload_bytes())
    return [c.text for c in chunk_pages(ex.pages, torch_emb.count_tokens, 200, 40, torch_emb.max_tokens)]


@pytest.fixture(scope="module")
def torch_vectors(sample_texts) -> np.ndarray:
    return Embedder().embed(sample_texts)


def test_default_is_int8_onnx_and_agrees_with_torch(sample_texts, torch_vectors):
    emb = get_embedder()
    assert emb.backend == "onnx-int8" and emb.name == "all-MiniLM-L6-v2"
    vectors = emb.embed(sample_texts)
    assert vectors.shape == torch_vectors.shape == (len(sample_texts), 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    cosine = (vectors * torch_vectors).sum(axis=1)
    assert cosine.mean() >= 0.99 and cosine.min() >= 0.97, (cosine.mean(), cosine.min())
    # the nearest chunk of each chunk is the same one under both (itself), and a query ranks alike
    q_t = Embedder().embed_query("wetland mitigation near the access road")
    q_o = emb.embed_query("wetland mitigation near the access road")
    top_t = set(np.argsort(-(torch_vectors @ q_t))[:3])
    top_o = set(np.argsort(-(vectors @ q_o))[:3])
    assert len(top_t & top_o) >= 2


def test_fp32_onnx_gives_the_torch_vectors(sample_texts, torch_vectors):
    fp32 = OnnxEmbedder(default_model_path(), "all-MiniLM-L6-v2", "onnx")
    cosine = (fp32.embed(sample_texts[:64]) * torch_vectors[:64]).sum(axis=1)
    assert cosine.min() > 0.9999


def test_token_counts_match_the_torch_tokenizer(sample_texts):
    torch_emb, onnx_emb = Embedder(), get_embedder()
    assert onnx_emb.count_tokens_many(sample_texts) == torch_emb.count_tokens_many(sample_texts)
    assert onnx_emb.count_tokens(sample_texts[0]) == torch_emb.count_tokens(sample_texts[0])
    assert onnx_emb.max_tokens == torch_emb.max_tokens == 254


def test_a_text_gets_the_same_vector_wherever_it_is_embedded(sample_texts):
    """One text per batch (the default): no neighbour or padding changes a text's int8 vector, so a query
    embedded alone matches the same words inside a document's batch exactly."""
    emb = get_embedder()
    texts = sample_texts[:40]
    a = emb.embed(texts)
    b = emb.embed(list(reversed(texts)))[::-1]
    assert np.array_equal(a, b)
    assert np.array_equal(emb.embed_query(texts[7]), a[7])
    # batched, dynamic quantisation would take its ranges over the whole batch: that is why batches are not used
    batched = emb.embed(texts, batch_size=8)
    assert not np.array_equal(batched, a)
    steps: list[float] = []
    emb.embed(texts[:5], progress=lambda f, _m: steps.append(f))
    assert len(steps) == 5 and steps[-1] == 1.0  # progress after every batch, not only at the end


def test_export_is_cached_and_its_key_follows_the_recipe(monkeypatch):
    model = default_model_path()
    path, seconds = export(__import__("pathlib").Path(model), "onnx-int8")
    assert path.exists() and seconds == 0.0  # exported once already by the session's embedder
    meta = json.loads((path.parent / "export.json").read_text())
    assert meta["backend"] == "onnx-int8"
    from lib.models import embedding_onnx

    before = cache_folder(__import__("pathlib").Path(model), "onnx-int8")
    monkeypatch.setattr(embedding_onnx, "KEEP_FP32", ("layer.5/",))
    assert cache_folder(__import__("pathlib").Path(model), "onnx-int8") != before


def test_backend_setting_and_fallback(monkeypatch, tmp_path):
    monkeypatch.setenv("NEPAQA_EMBED_BACKEND", "tensorrt")
    with pytest.raises(UserError, match="NEPAQA_EMBED_BACKEND"):
        effective_backend()
    monkeypatch.setenv("NEPAQA_EMBED_BACKEND", "onnx-int8")
    # a model folder that is not mean-pooled runs on torch instead of giving wrong vectors
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "tokenizer.json").write_text("{}")
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_cls_token": True}))
    assert effective_backend(str(tmp_path)) == "torch"
    assert effective_backend() == "onnx-int8"
