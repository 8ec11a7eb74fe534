"""The one word tokenizer: lower-case tokens without stop words, for the lexical index, the retriever and the
extractive baseline alike (so a query and the text it is matched against are cut the same way)."""
from __future__ import annotations

import re

_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did", "do", "does", "for", "from", "had", "has", "have", "how", "if", "in", "into", "is", "it", "its", "of", "on", "or", "other", "should", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "to", "was", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your"]
)


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens without stop words, with a light plural strip (not tuned to any document)."""
    out = []
    for w in _WORD.findall(text.lower()):
        if w in STOPWORDS:
            continue
        if len(w) > 4 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.append(w)
    return out
