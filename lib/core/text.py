"""The one word tokenizer: lower-case tokens without stop words, for the lexical index, the retriever and the
extractive baseline alike (so a query and the text it is matched against are cut the same way)."""
from __future__ import annotations

import re
from collections import Counter

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


# Stands between two passages of one source that are not contiguous text (two chunks of one page that do not
# overlap): nothing runs across it, so no reader takes the end of one and the start of the next for one sentence.
PASSAGE_GAP = "[…]"
_HYPHEN_BREAK = re.compile(r"(\w+)-[ \t]*\n\s*(\w+)")
_WORDS = re.compile(r"\w+(?:-\w+)*")


def join_line_breaks(text: str) -> str:
    """Words hyphenated across a line break joined: "wet-\\nlands" → "wetlands", but "long-\\nterm" →
    "long-term" where the text itself writes "long-term" elsewhere and never "longterm" (a compound, not a word
    split to fit the line). Without such evidence the two halves are joined."""
    if "-" not in (text or ""):
        return text or ""
    seen = {w.lower() for w in _WORDS.findall(_HYPHEN_BREAK.sub(" ", text))}  # the words no break touches

    def join(m: re.Match[str]) -> str:
        a, b = m.group(1), m.group(2)
        compound = f"{a}-{b}".lower() in seen and f"{a}{b}".lower() not in seen
        return f"{a}-{b}" if compound else f"{a}{b}"
    return _HYPHEN_BREAK.sub(join, text)


def mend(text: str) -> str:
    """Text as a quote is compared with its source: words hyphenated across a line break joined
    (``join_line_breaks``) and every run of whitespace one space. Nothing else changes, so a quote whose mended
    text occurs in its source's mended text occurs there character for character."""
    return " ".join(join_line_breaks(text).split())


_BOILERPLATE = re.compile(
    r"^(?:(?:final|draft|revised|supplemental|programmatic|tiered|record of decision for the)\s+)*"
    r"(?:environmental\s+impact\s+statement|environmental\s+assessment|eis|ea)\b[\s,:–-]*"
    r"(?:(?:for|on|of)\s+(?:the\s+)?)?", re.I)
SHORT_TITLE = 40


_VOLUME_TAIL = re.compile(r"^(.+), (Volume (?:[IVXLC]+|\d+))$")  # how citations name a volume (collection.volumes)


def short_title(name: str, limit: int = SHORT_TITLE, brackets: bool = False) -> str:
    """A document's title short enough for an inline citation: "Final Environmental Impact Statement for the
    Tongass Land Management Plan Amendment" → "Tongass Land Management Plan Amendment"; a longer one is cut at a
    word and ends with "…". ``brackets`` keeps what brackets hold, after a comma ("…, Volume 1")."""
    tail = _VOLUME_TAIL.match(" ".join((name or "").split()))
    if tail:  # a volume of an EIS ("Project, Volume III"): the title shortened, its volume always kept
        return f"{short_title(tail.group(1), limit, brackets)}, {tail.group(2)}"
    # a bracketed acronym ("(TLMP)") is left out: a citation is itself in brackets, "(Short, p. 8)"
    name = " ".join(re.sub(r"\s*\(([^()]*)\)", r", \1" if brackets else "", name or "").split())
    rest = _BOILERPLATE.sub("", name, count=1).strip(" ,:–-")
    name = rest[:1].upper() + rest[1:] if len(rest.split()) >= 2 else name
    return name if len(name) <= limit else _at_word(name, limit, " ,:;–-(") + "…"


def _at_word(text: str, limit: int, strip: str) -> str:
    """The first ``limit`` characters of ``text``, back to the last whole word, without trailing ``strip``."""
    return text[:limit].rsplit(" ", 1)[0].rstrip(strip) or text[:limit]


def clip(text: str, limit: int) -> str:
    """Text on one line, cut at a word and ended with " …" where it is longer than ``limit`` characters."""
    text = " ".join((text or "").split())
    return text if len(text) <= limit else _at_word(text, limit, ",;:") + " …"


def told_apart(labels: dict[str, str], more: dict[str, str]) -> dict[str, str]:
    """Each label, with `` · `` and its ``more`` (a file name) where another key has the same label: two documents
    with one title are told apart by their files, and a title no other shares stays as it is."""
    seen = Counter(labels.values())
    return {k: f"{v} · {more[k]}" if seen[v] > 1 and more.get(k) and more[k] != v else v for k, v in labels.items()}


def short_titles(names: list[str], limit: int = SHORT_TITLE) -> dict[str, str]:
    """``short_title`` of each name, lengthened where two would read the same, so each still tells its
    document apart; titles that differ only in brackets ("(Volume 1)", "(Volume 2)") all keep them."""
    names = list(dict.fromkeys(names))
    whole = {n: short_title(n, 10**6) for n in names}
    alike = {n for n in names if sum(whole[m] == whole[n] for m in names) > 1}
    out: dict[str, str] = {}
    for n in names:
        size = limit
        while True:
            s = short_title(n, size, brackets=n in alike)
            if s not in out.values() or size > len(n) + 40:
                break
            size += 12
        out[n] = s
    return out


_FILE_EXT = re.compile(r"\.(?:pdf|txt|csv|json|jsonl)$", re.I)
_EIS_TAG = re.compile(r"^(?:f|d|s|sd|sf)?eis\b\s*|\s*\b(?:f|d|s|sd|sf)?eis$", re.I)


def without_notes(label: str) -> str:
    """A name without its notes in brackets, for a table or a chart axis of many rows: "SmolLM2-135M (tiny local
    model) · 0-shot" → "SmolLM2-135M · 0-shot". The notes are shown where one thing is opened."""
    return " ".join(re.sub(r" \([^()]*\)", "", label).split())


def readable_name(name: str) -> str:
    """A file name as words: "eis_Continental_United_States_Interceptor_Site.pdf" → "Continental United States
    Interceptor Site" (extension, underscores and a bare EIS/FEIS/DEIS tag at either end gone, where words
    remain). A name with spaces already is left as it is."""
    name = (name or "").strip()
    words = " ".join(_FILE_EXT.sub("", name).replace("_", " ").split())
    if " " in name and "_" not in name:
        return words
    rest = _EIS_TAG.sub("", words).strip()
    return rest if len(rest.split()) >= 2 else words



_ABBREVIATIONS = ("u.s", "e.g", "i.e", "etc", "sec", "secs", "fig", "figs", "dr", "mr", "ms", "mrs", "inc", "co",
                  "st", "approx", "vs", "c.f.r", "cfr", "pp", "p", "vol", "ch", "para", "ft", "mi", "ac", "jr", "sr",
                  "no", "nos", "n.e", "n.w", "s.e", "s.w", "a.m", "p.m", "al", "jan", "feb", "mar", "apr", "jun",
                  "jul", "aug", "sep", "sept", "oct", "nov", "dec", "ca", "lb", "lbs", "oz", "yd", "yds", "gal")
_STOP = re.compile(r"([.!?][\"”')\]]*)\s+(?=[\"“(\[]?[A-Z0-9])")
_ABBREVIATED = re.compile(r"(?:^|[\s(\[])(?:" + "|".join(re.escape(a) for a in _ABBREVIATIONS) + r"|[A-Z])\.$",
                          re.IGNORECASE)


def quick_sentences(text: str) -> list[str]:
    """Sentences of one line of prose by rule, about a hundred times faster than pysbd: a break after ".", "!" or
    "?" before a capital or a digit, except after an abbreviation ("U.S.", "e.g.", "No.", "Fig.") or an initial.
    For comparing texts (the support check's units), where a rare wrong break costs little; quotes shown to a
    user come from pysbd (lib/core/sentences.py)."""
    out: list[str] = []
    start = 0
    for m in _STOP.finditer(text):
        piece = text[start:m.end(1)].strip()
        if _ABBREVIATED.search(piece.split(" ")[-1] if piece else ""):
            continue
        if piece:
            out.append(piece)
        start = m.end()
    tail = text[start:].strip()
    return [*out, tail] if tail else out
