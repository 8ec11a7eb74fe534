"""Models: the registry of concrete answering models (``family/model`` ids; OpenAI, Anthropic, OpenAI-compatible
servers, local GGUF, the extractive baseline), the interface they implement, the prompts sent to them, and the
embedding model (sentence-transformers, or ONNX Runtime int8 and fp32)."""
from lib.models import prompts, registry
from lib.models.base import Answer, ModelOptions, Provider, ProviderError, Request
from lib.models.embedding import Embedder, get_embedder, get_exact_embedder, warm_status, warm_up_in_background
from lib.models.registry import get, resolve, resolve_all, status_all

__all__ = ["Answer", "Embedder", "ModelOptions", "Provider", "ProviderError", "Request", "get", "get_embedder",
           "get_exact_embedder", "prompts", "registry", "resolve", "resolve_all", "status_all", "warm_status",
           "warm_up_in_background"]
