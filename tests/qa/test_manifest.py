"""Run manifests (lib/qa/manifest.py) read and written as they were stored: an older run's manifest comes back as
recorded (its entries are read in today's terms only to decide a resume), and a changed configuration is named."""
import json

import pytest

from lib.core.errors import UserError
from lib.qa import manifest
from lib.storage.engine import get_engine

OLD = {  # as an early version stored it: the embedder by name alone, no semantic_embedder, a key since retired
    "app_version": "0.1", "documents": [{"chunk_overlap": 40, "chunk_size": 220, "doc_id": "d1", "gen": 1,
                                         "name": "a.pdf", "sha256": "ab"}],
    "embedder": "all-MiniLM-L6-v2", "judge": None, "kind": "bench",
    "models": [{"id": "local/extractive", "options": {"temperature": None}}], "prompts": {"rag": "feed"},
    "retired_key": 7, "settings": {"k": 3}}


def test_an_old_manifest_is_read_and_written_back_as_stored(tmp_path):
    eng = get_engine(f"sqlite:///{tmp_path / 'm.db'}")
    manifest.save("old", "bench", manifest.Manifest.from_json(OLD), eng)
    got = manifest.load("old", eng)
    assert got is not None and got.as_json() == OLD and list(got.as_json()) == sorted(OLD)
    assert (got.embedder, got.semantic_embedder, got.extra) == ("all-MiniLM-L6-v2", None, {"retired_key": 7})
    # its embedder is read in today's terms where a decision rests on it: it ran on torch
    assert manifest.semantic_embedder_changed("old", "all-MiniLM-L6-v2 (onnx)", eng) == "all-MiniLM-L6-v2 (torch)"
    new = manifest.Manifest.from_json(json.loads(json.dumps(OLD)) | {"embedder": "all-MiniLM-L6-v2 (onnx-int8)"})
    with pytest.raises(UserError, match=r"embedder: \"all-MiniLM-L6-v2 \(torch\)\" → \"all-MiniLM-L6-v2 \(onnx-int8\)\""):
        manifest.check_resume("old", "bench", new, eng)
    manifest.check_resume("old", "bench", manifest.Manifest.from_json(OLD | {"embedder": "all-MiniLM-L6-v2 (torch)",
                                                                              "semantic_embedder": "all-MiniLM-L6-v2 (torch)"}), eng)
