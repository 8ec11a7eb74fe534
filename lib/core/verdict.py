"""Normalise a free-text answer to a closed question into yes, no or unclear.

`parse_verdict` reads the whole answer, not just its first word. Rules, in order:

1. Blank or None is unclear. Markdown (``**``, ``_``, ``#``, backticks), curly quotes and list bullets are ignored.
2. Explicit verdicts are collected with their position in the answer:
   - labelled ones anywhere: "Answer: yes", "Final answer: NO", "Verdict: Yes.", "A: No",
     '{"verdict": "no"}', "the answer is: Yes", "so the answer would be no", "I would say yes";
   - a verdict word opening the first real sentence (after headers such as "Based on the context:", a
     quoted question, or "Let me check the passage."), the last sentence, or any sentence opened by a
     concluding word ("Therefore, yes.", "So, no.", "In conclusion, ...", "Wait, actually no."); a short
     preamble clause is allowed ("Based on the provided context, no.", "According to the EIS, yes, ...").
   Verdict words are yes/yeah/yep, no/nope, Y/N (alone or after a label), true/false, correct/incorrect,
   "not true"/"not correct" (no), "not false"/"not incorrect" (yes), "that's right" style "right".
   The LAST explicit verdict wins, so a final "Therefore, the answer is: Yes." beats a leading "No" and
   "Yes... wait, actually no." is no.
   A verdict that is hedged ("probably yes", "Yes, possibly", "likely no"), "yes and no", "a definitive yes
   or no", and "Answer: unclear / cannot be determined / not stated" are explicit *unclear* verdicts. So
   is a first or concluding sentence that opens with a hedge ("It is not clear from the passage ...",
   "I'm not sure", "It depends", "Possibly ..."); a later explicit yes/no still wins over it.
   The word "no" is a verdict only when it stands alone ("No.", "No,", "no" at the end) or is followed by a
   pronoun/article ("No it does not", "No the ..."): "No Action Alternative", "no-action", "no significant
   impact" and "Executive Order No. 11990" are noun phrases, never verdicts. "right" is a verdict only when
   it stands alone ("Right.", "that's right"), so "right-of-way" is not one; "negative" likewise.
3. With no explicit verdict, one sentence is judged as a statement: the last sentence opened by a concluding
   word ("Therefore, the project would not ...") when that gives a signal, else the first real sentence.
   - A hedge or "cannot tell" phrase makes it unclear: unclear, uncertain, not clear, not sure, does not
     say/specify/mention/..., not specified/stated/..., insufficient/not enough information, cannot be
     determined, unable to determine, it depends, possibly, perhaps, maybe, probably, likely, may/might.
   - A truth predicate decides: "is (not) true/correct/accurate", "is false/incorrect/wrong/inaccurate",
     "that is (not) the case"; "not false"/"not incorrect" are yes; "not entirely/quite/necessarily true"
     is unclear. "It is true that <negated clause>" is no.
   - A negated main assertion (see `is_negated`) is no: "would not affect wetlands", "didn't", "won't",
     "cannot", "never", "none", "neither/nor", "There would be no impacts", "No wetlands would be filled".
   - An emphatic affirmative is yes: do-support ("The Army did consult the USFWS", "The EIS does
     address ...") or "indeed"/"in fact".
   - Anything else is unclear. A plain affirmative assertion ("The right-of-way crosses wetlands",
     "The Army consulted the USFWS") is NOT read as yes: without the question it could be a restatement,
     a side fact or a partial answer, and this parser prefers unclear to a guess. Domain words such as
     "negative impacts", "right-of-way" or "no action alternative" carry no verdict.

Negations count: "incorrect", "not true", "No, ..." are no. (Some research code maps "incorrect"
to yes because it contains "correct"; this parser does not.)
"""
from __future__ import annotations

import re

YES, NO, UNCLEAR = "yes", "no", "unclear"
# a model that cannot decide yes or no (the extractive baseline) gives none: its answer is quotes only, never
# scored wrong and never read for a verdict
QUOTES_ONLY = "quotes only"

# ---------------------------------------------------------------------------------------------------------------
# Normalisation and sentences

_ABBREVS = (
    "u.s", "u.s.c", "e.g", "i.e", "etc", "sec", "secs", "fig", "figs", "dr", "mr", "ms", "mrs", "inc", "co", "st",
    "approx", "vs", "c.f.r", "cfr", "pp", "p", "vol", "ch", "para", "ft", "mi", "ac", "jr", "sr", "no", "nos",
    "n.e", "n.w", "s.e", "s.w", "a.m", "p.m", "al",
)
_ABBREV_END = re.compile(r"(?:^|[\s(\[])(?:" + "|".join(re.escape(a) for a in _ABBREVS) + r")\.$", re.I)
_SPLIT = re.compile(r"(?<=[.!?])\s+|\s*\n\s*")


def _normalise(text: str) -> str:
    t = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    t = t.replace("\u00a0", " ")
    t = re.sub(r"[*`#]+", "", t)
    t = re.sub(r"(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])", "", t)  # _emphasis_ but not snake_case keys
    t = t.replace("_", " ")
    t = re.sub(r"(?m)^[ \t]*>+[ \t]?", "", t)
    return t


def _sentences(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) pairs; does not split after "U.S." or "e.g.", nor in "Order No. 11990"."""
    out: list[tuple[int, str]] = []
    pos = 0
    for m in [*_SPLIT.finditer(text), None]:
        end = m.start() if m else len(text)
        piece = text[pos:end]
        start = pos + len(piece) - len(piece.lstrip())
        pos = m.end() if m else len(text)
        stripped = piece.strip()
        if not stripped:
            continue
        if out:
            prev_off, prev = out[-1]
            same_line = "\n" not in text[prev_off + len(prev):start]
            is_no = re.search(r"(?:^|\s)nos?\.$", prev, re.I)
            if same_line and _ABBREV_END.search(prev) and (not is_no or stripped[:1].isdigit()):
                out[-1] = (prev_off, text[prev_off:start + len(stripped)])
                continue
        out.append((start, stripped))
    return out


# ---------------------------------------------------------------------------------------------------------------
# Building blocks

_HEDGE_ADV = r"(?:most |very |quite |more than |highly )?(?:probably|likely|possibly|maybe|perhaps|presumably|arguably|seemingly|unlikely|potentially|conceivably)"
_NO_WORD = (
    r"no(?![-\w])(?!\.\s*\d)"
    r"(?=\s*$|\s*[,.;:!?)\]\"'/]|\s*[\u2014\u2013]|\s+-|\s+(?:it|the|they|there|this|that|he|she|we|i|because|since|"
    r"but|however|according|based|as|not)\b)"
)
_YES_WORD = r"yes(?![-\w])"
_PUNCT_AFTER = r"(?=\s*$|\s*[,.;:!?)\]\"']|\s*[\u2014\u2013]|\s+-)"
_COMM_VERBS = (
    r"(?:say|says|said|state|states|stated|specify|specifies|specified|mention|mentions|mentioned|indicate|"
    r"indicates|indicated|address|addresses|addressed|discuss|discusses|discussed|clarify|clarifies|tell|tells|"
    r"confirm|confirms|reveal|reveals|detail|details|explain|explains|describe|describes|note|notes|report|reports|"
    r"provide (?:enough|sufficient|any|the|information|details|specific)|contain (?:enough|sufficient|any|information))"
)
_HEDGE = re.compile(
    r"\b(?:unclear|uncertain|undetermined|indeterminate|inconclusive|ambiguous|unsure|"
    r"(?:is|are|was|remains|were) unknown|"
    r"not (?:entirely |completely |fully |immediately |totally |really |100% )?(?:clear|certain|sure|known|evident|obvious|"
    r"explicit|determinable|possible to (?:say|determine|tell|know|conclude|confirm))|"
    r"not (?:explicitly |directly |specifically |clearly |expressly )?(?:specified|stated|mentioned|indicated|addressed|"
    r"discussed|described|provided|covered|included in the (?:passage|context|excerpt|text|document)|given|reported|"
    r"identified in the (?:passage|context|excerpt|text))|"
    r"(?:doesn't|don't|didn't|does not|do not|did not|has not|have not|hasn't|haven't|is not|isn't) (?:explicitly |directly |specifically |"
    r"clearly |expressly |actually )?" + _COMM_VERBS + r"|"
    r"(?:no|not enough|insufficient|limited|inadequate|lacks?(?: the| sufficient| enough)?) (?:specific |explicit |"
    r"direct |detailed |clear |relevant )?(?:information|details?|data|evidence|indication|mention|reference|context)|"
    r"(?:cannot|can't|can not|could not|couldn't|unable to|impossible to|hard to|difficult to|no way to) "
    r"(?:be )?(?:determine|determined|say|tell|answer|confirm|confirmed|conclude|concluded|know|known|verify|verified|"
    r"infer|inferred|ascertain|ascertained|find|be sure|be certain|definitively|definitely)|"
    r"i (?:do not|don't) know|i'm not|i am not|it depends|depends on|may or may not|either way|"
    r"(?:may|might) (?:not )?(?:be|have|affect|occur|result|impact|need|require|include|cause|also|apply|exist)|might|"
    r"possibly|perhaps|maybe|probably|likely|unlikely|presumably|apparently|seems?|appears? to|suggests?|implies|"
    r"implied|n/a)\b"
)
_TRUTH = re.compile(
    r"(?<!\bas )\b(?:is|are|was|were|be|been|'s|remains|seems|appears)\s+"
    r"(?:(?:indeed|actually|in fact|entirely|completely|absolutely|definitely|certainly|simply|also)\s+)?"
    r"(?P<neg>not\s+)?(?P<mod>(?:entirely|completely|quite|strictly|necessarily|fully|totally|exactly|wholly|"
    r"altogether)\s+)?"
    r"(?P<w>true|false|correct|incorrect|accurate|inaccurate|untrue|wrong|right" + _PUNCT_AFTER + r"|the case|so"
    + _PUNCT_AFTER + r")\b"
)
_TRUTH_YES = {"true", "correct", "accurate", "right", "the case", "so"}

_SUBORDINATE = re.compile(
    r"\b(?:because|since|although|though|unless|whereas|while|if|whether|which|who|whom|where|when|so that|"
    r"even though|except|as long as|in case|provided that)\b[^;]*?(?=[;]|$)"
)
_LEADING_SUBORDINATE = re.compile(
    r"^\s*(?:although|though|while|whereas|if|unless|because|since|when|even if|even though|as long as|despite|"
    r"given that|provided that|whether)\b[^,]*,"
)
_NOT_NEGATING = re.compile(
    r"\b(?:not only|not just|not merely|not limited to|not to exceed|whether or not|if not|or not|"
    r"n[o']t (?:less|more|fewer|greater|later|earlier|sooner|longer) than|no (?:less|more|fewer|greater|later|earlier|"
    r"sooner|longer) than|not least|not unlike|no doubt|no matter|no longer)\b"
    r"|,\s*(?:and\s+)?not\s+[^,.;]*"  # contrast: "wetlands, not streams"
)
_NEGATION = re.compile(
    r"\b(?:not|never|cannot|none|neither|nor|nowhere|nothing|nobody)\b|\b\w+n't\b|\b(?:didnt|doesnt|dont|isnt|"
    r"wasnt|arent|werent|hasnt|havent|hadnt|wouldnt|couldnt|shouldnt)\b"
    r"|\bthere(?:'s| is| are| was| were| will be| would be| would have been| has been| have been| had been| will| "
    r"would) no\b(?! action\b)(?!\.\s*\d)"
    r"|\b(?:found|find|finds|have|has|had|cause|causes|caused|result in|results in|resulted in|pose|poses|posed|"
    r"produce|produces|produced|involve|involves|involved|require|requires|required|identified|identify|identifies|"
    r"observed|reported|received|made|make|makes|see|sees|saw|took|take|takes|expect|expects|anticipate|anticipates|"
    r"anticipated)\s+no\b(?! action\b)(?!\.\s*\d)"
    r"|^\s*no\s+(?!action\b)(?:[a-z,\-]+\s+){0,6}?(?:would|will|is|are|was|were|has|have|had|can|could|shall|should|"
    r"occurs?|occurred|exists?|existed|takes? place|took place)\b"
)
_EMPHATIC = re.compile(
    r"(?<!\bhow )(?<!\bwhat )(?<!\bwhy )(?<!\bwhere )(?<!\bwhen )(?<!\bas )(?<!\bthan )(?<!\bwhich )"
    r"\b(?:did|does|do)\s+(?:(?:indeed|in fact|actually|clearly|explicitly|also)\s+)?"
    r"(?!(?:not|so|this|that|the|a|an|it|they|them|any|anything|nothing|something|more|less|well|its|their|his|her|"
    r"our|in|on|at|to|for|with|by|of|from|as|and|or|but|if|when|is|was|are|were|be|you|we|he|she|i|there|what|"
    r"which|these|those|such|no|n't)\b)[a-z]{3,}\b"
    r"|\bindeed\b|\bin fact\b"
    # a bare echo of the question's auxiliary: "It does.", "The Army did.", "They were."
    r"|^\W*(?:it|they|he|she|we|(?:the|this|that) [a-z.\-]+(?: [a-z.\-]+){0,4}) (?:did|does|do|has|have|had|will|"
    r"would|is|was|were|are|can|could)\s*[.!]?$"
)
_CONCLUDE = re.compile(
    r"^\W*(?:so|therefore|thus|hence|consequently|accordingly|overall|ultimately|in (?:short|summary|sum|conclusion|"
    r"brief)|to (?:summarize|sum up|conclude)|as a result|in the end|all in all|conclusion|summary|bottom line|"
    r"final(?:ly)?|wait|actually|correction|final answer|answer|short answer|tl;?dr)\b",
)
_META = re.compile(
    r"^\W*(?:let's|let us|let me|i will|i'll|we need|we must|i need|i must|we can|first,? (?:let|we|i)|step \d|"
    r"the question|this question|your question|here is|here's|to answer|to determine|looking at|in order to|"
    r"i'm going to|i am going to|okay|ok|sure|certainly|of course|great question|good question)\b"
)
_BOILERPLATE = re.compile(
    r"^\W*(?:i hope|hope this|let me know|feel free|please let|if you (?:have|need|want)|please note|"
    r"note:|disclaimer)"
)
_CONNECTOR = (
    r"(?:so|therefore|thus|hence|consequently|accordingly|overall|ultimately|actually|wait|well|hmm+|ok|okay|and|"
    r"but|however|in (?:short|summary|sum|conclusion|brief)|to (?:summarize|sum up|conclude)|as a result|in the end|"
    r"all in all|final(?:ly)?|correction|the short answer is|short answer|bottom line|conclusion|summary|tl;?dr|"
    r"final answer|answer|verdict)"
)
_PREAMBLE = rf"(?P<pre>(?:{_CONNECTOR}\b[\s,:;\-\u2014\u2013]*|[^,;:.!?\n]{{1,100}}?,\s*){{0,4}}?)"
_LEAD = re.compile(
    r"^[\s\-\u2022*>\"'(\[]*(?:\d+[.)]\s+)?" + _PREAMBLE + r"(?:"
    r"(?P<hedge>" + _HEDGE_ADV + r"\b|it depends\b|(?:it is|it's|this is|that is) (?:unclear|uncertain|not "
    r"(?:entirely |completely )?(?:clear|certain|possible|known|explicitly|specified|stated|mentioned))|"
    r"(?:this|that|it|the answer) (?:cannot|can't|can not) be determined|cannot be determined|unclear|uncertain|"
    r"(?:there is )?(?:not enough|insufficient) information|i (?:do not|don't) know|i'm not sure|i am not sure|"
    r"hard to say|unknown|not (?:necessarily|exactly|entirely|explicitly|directly|specifically|clear|certain|sure|"
    r"stated|specified|mentioned|known|enough|definitively|clearly|determinable)\b)"
    r"|(?P<no2>not (?:true|correct|accurate|so|really|at all|quite|according\b|based\b))"
    r"|(?P<yes2>not (?:false|incorrect|inaccurate|untrue|wrong)\b)"
    r"|(?P<yes>" + _YES_WORD + r"|yeah\b|yep\b|yup\b|(?:correct|true|right|affirmative|indeed|absolutely|"
    r"certainly|definitely|of course|that's right|"
    r"that is right|that's correct|that is correct|that's true|that is true)" + _PUNCT_AFTER + r")"
    r"|(?P<no>" + _NO_WORD + r"|nope\b|nah\b|(?:certainly not|absolutely not|definitely not|of course not|"
    r"incorrect|false|wrong|negative|never|that's incorrect|that is "
    r"incorrect|that's false|that is false|that's not (?:true|correct|the case)|that is not (?:true|correct|the case))"
    + _PUNCT_AFTER + r")"
    r")"
)
_VALUE = (
    r"(?P<h>(?:" + _HEDGE_ADV + r")[\s,]+)?"
    r"(?P<v>" + _YES_WORD + r"|" + _NO_WORD + r"|true\b|false\b|correct\b|incorrect\b|n/a\b|y(?![\w/'])|n(?![\w/'])|"
    r"unclear\b|uncertain\b|unknown\b|undetermined\b|indeterminate\b|(?:it )?(?:cannot|can't|can not) be determined\b|"
    r"not (?:clear|stated|specified|mentioned|known|determinable|enough|possible to determine|explicitly)\b|"
    r"insufficient\b|none\b|null\b)"
)
_LABEL = re.compile(
    r"(?:[\"']?\b(?:final answer|short answer|final verdict|verdict|answer|conclusion|response|label|bottom line|"
    r"tl;?dr)(?: to (?:this|the|your) question)?[\"']?\s*(?:[:=]|-\s|[\u2014\u2013]|\bis\b|\bwould be\b|\bwill be\b|"
    r"\bremains\b|\bhere is\b)"
    r"|(?:^|\n)[ \t]*a\s*[:)]"
    r"|\b(?:i would|i'd|i will|i'll|i) (?:say|answer)\b:?"
    r"|\banswer to [^\n]{1,160}? (?:is|would be)\b)"
    r"[\s\"'\[(:]*" + _VALUE
)
_BOTH = re.compile(
    r"\byes and no\b|\bneither yes nor no\b|\b(?:simple|definitive|definite|clear|straightforward|direct|firm|"
    r"conclusive|clear-cut) (?:\"?yes\"? or \"?no\"?|\"?no\"? or \"?yes\"?)"
)
_AFTER_YESNO = re.compile(r"^\s*(?:or|and|/)\s*(?:no|yes)\b")
_AFTER_HEDGE = re.compile(r"^[\s,\u2014\u2013-]*(?:" + _HEDGE_ADV + r"|i (?:guess|suppose|think so))\b")
_WHOLE_YN = re.compile(r"^\W*(y|n)\W*$")


def _value_verdict(word: str) -> str:
    if word in ("yes", "true", "correct", "y"):
        return YES
    if word in ("no", "false", "incorrect", "n"):
        return NO
    return UNCLEAR


def _lead_verdict(sentence: str, hedges: bool) -> tuple[int, str] | None:
    """A verdict word opening this sentence: (offset of the word, verdict), or None."""
    m = _LEAD.match(sentence)
    if not m:
        return None
    pre = m.group("pre") or ""
    if m.group("hedge") is not None:
        return (m.start("hedge"), UNCLEAR) if hedges else None
    if m.group("no2") is not None:
        return m.start("no2"), NO
    if m.group("yes2") is not None:
        return m.start("yes2"), YES
    name = "yes" if m.group("yes") is not None else "no"
    verdict = YES if name == "yes" else NO
    rest = sentence[m.end(name):]
    if re.search(r"\b" + _HEDGE_ADV + r"\b", pre) or _AFTER_HEDGE.match(rest) or _AFTER_YESNO.match(rest):
        verdict = UNCLEAR
    return m.start(name), verdict


def _label_candidates(t: str) -> list[tuple[int, str]]:
    out = []
    for m in _LABEL.finditer(t):
        verdict = _value_verdict(m.group("v"))
        if m.group("h") or _AFTER_YESNO.match(t[m.end("v"):]) or _AFTER_HEDGE.match(t[m.end("v"):]):
            verdict = UNCLEAR
        out.append((m.start("v"), verdict))
    return out


_HEADING = re.compile(
    r"^\W*(?:final |short |my |the )?(?:answer|verdict|conclusion|summary|response|reasoning|explanation|analysis|"
    r"evidence|justification|rationale|details?)\W*$"
)


def _substantive(s: str) -> bool:
    return bool(re.search(r"[a-z]", s)) and not s.rstrip().endswith((":", "?")) and not _HEADING.match(s)


# ---------------------------------------------------------------------------------------------------------------
# Statements

def is_negated(sentence: str) -> bool:
    """Whether a sentence negates its main assertion.

    True for not / never / n't contractions (didn't, isn't, won't, doesn't, ...) / cannot / none / neither / nor,
    "there would be no ...", "would have no ...", "found no ..." and a sentence opened by "No <noun> would/is ...".
    False for "no" inside a noun phrase or a name ("Executive Order No. 11990", "no action alternative",
    "Finding of No Significant Impact"), for "negative impacts", for quantity bounds ("not less than",
    "no more than", "not to exceed", "including but not limited to"), "not only", "whether or not", a contrast
    tacked on after a comma ("wetlands, not streams"), and a "not" only inside a subordinate clause
    ("because the site was not delineated").
    """
    if not sentence:
        return False
    s = _normalise(sentence).lower()
    s = re.sub(r"\([^()]*\)", " ", s)  # parentheticals: "(Executive Order No. 11990)"
    s = _NOT_NEGATING.sub(" ", s)
    s = _LEADING_SUBORDINATE.sub(" ", s)
    s = _SUBORDINATE.sub(" ", s)
    return bool(_NEGATION.search(s.strip()))


def _statement(sentence: str) -> str | None:
    """yes / no / unclear for a sentence read as a statement, or None when it carries no signal."""
    s = sentence.lower()
    if _HEDGE.search(s):
        return UNCLEAR
    m = _TRUTH.search(s)
    if m:
        word = m.group("w")
        if m.group("mod") and m.group("neg"):
            return UNCLEAR
        verdict = YES if word in _TRUTH_YES else NO
        if m.group("neg"):
            verdict = NO if verdict == YES else YES
        rest = s[m.end():]
        that = re.match(r"\s*,?\s*that\b(.*)", rest)
        if that and is_negated(that.group(1)):
            verdict = NO if verdict == YES else YES
        return verdict
    if is_negated(s):
        return NO
    if _EMPHATIC.search(s) and not s.rstrip().endswith("?"):
        return YES
    return None


# ---------------------------------------------------------------------------------------------------------------
# The parser

def parse_verdict(text: str | None) -> str:
    """yes, no or unclear for an answer to a yes/no question (rules in the module docstring)."""
    if not text or not text.strip():
        return UNCLEAR
    raw = _normalise(text)
    t = raw.lower()
    if not re.search(r"[a-z]", t):
        return UNCLEAR
    whole = _WHOLE_YN.match(t)
    if whole:
        return YES if whole.group(1) == "y" else NO

    sentences = [(off, s.lower()) for off, s in _sentences(raw)]
    candidates = _label_candidates(t)
    candidates += [(m.start(), UNCLEAR) for m in _BOTH.finditer(t)]

    # The first real sentence: skip headers ("Based on the context:"), quoted questions and meta talk.
    first = None
    for i, (_off, s) in enumerate(sentences):
        if not _substantive(s) and not _lead_verdict(s, hedges=False):
            continue
        if _META.match(s) and not _lead_verdict(s, hedges=False):
            continue
        first = i
        break
    last = None
    for i in range(len(sentences) - 1, -1, -1):
        s = sentences[i][1]
        if _BOILERPLATE.match(s) or (s.rstrip().endswith("?") and not _lead_verdict(s, hedges=False)):
            continue
        if re.search(r"[a-z]", s):
            last = i
            break

    for i, (off, s) in enumerate(sentences):
        concluding = bool(_CONCLUDE.match(s))
        if i == first or concluding:
            found = _lead_verdict(s, hedges=True)
        elif i == last:
            found = _lead_verdict(s, hedges=False)
        else:
            continue
        if found:
            candidates.append((off + found[0], found[1]))

    if candidates:
        return max(candidates, key=lambda c: c[0])[1]

    # No explicit verdict: read the concluding sentence, else the first real one, as a statement.
    concluded = [s for _off, s in sentences if _CONCLUDE.match(s)]
    if concluded:
        sig = _statement(_CONCLUDE.sub("", concluded[-1], count=1))
        if sig is not None:
            return sig
    if first is not None:
        sig = _statement(sentences[first][1])
        if sig is not None:
            return sig
    return UNCLEAR


_CLOSED_START = re.compile(
    r"^\s*(is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|shall|may|might|must)\b", re.I
)


def looks_closed(question: str) -> bool:
    """A question that starts with an auxiliary verb ("Did the ...?", "Is there ...?") is closed."""
    return bool(_CLOSED_START.match(question)) and " or " not in question.lower()
