"""Retrieval over a scope of documents (one, a set, all, or a metadata filter): dense, lexical and hybrid (RRF)
search with balanced results, and search-engine style results ranked by document."""
from lib.retrieval.corpus_search import DocResult, FoundPassage, search_documents, snippet
from lib.retrieval.retriever import METHODS, Hit, Retriever, reciprocal_rank_fusion

__all__ = ["METHODS", "DocResult", "FoundPassage", "Hit", "Retriever", "reciprocal_rank_fusion", "search_documents",
           "snippet"]
