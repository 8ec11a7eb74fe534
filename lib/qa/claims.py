"""Does a sentence of an answer make a claim? The kinds of sentence that state nothing about the project or the world
are told apart by rules, so the support check gives them no mark and counts them apart:

- ``lead-in``: restates the question or announces the answer ("The question asks about the alternatives.",
  "Here is what the passage says.", "Based on the information provided, I will answer the question.");
- ``refusal``: declines to answer ("I cannot determine the answer from the given context.", "The passage does not
  provide enough information to answer this question.");
- ``remark``: a remark about the sources themselves, naming only a topic ("The passage discusses air quality.");
- ``absence``: a claim that the sources do not say something ("The passage does not mention the cost."). It is a
  claim, but no span of text can show it, so the check says "not checked" rather than pass it.

Everything else is a ``claim``. The rules' precision and recall on the labelled set are in bench/support.py.
"""
from __future__ import annotations

import re

CLAIM, LEAD_IN, REFUSAL, REMARK, ABSENCE = "claim", "lead-in", "refusal", "remark", "absence"
NO_CLAIM_KINDS = (LEAD_IN, REFUSAL, REMARK)

_SOURCE = (r"(?:the |this |these |that |each |both |all )?(?:provided |given |above |following |retrieved |cited )?"
           r"(?:passages?|context|contexts|text|texts|excerpts?|sources?|documents?|information(?: provided| given)?|"
           r"eis|section|paragraph)(?:\s*\[\d+\])?")
_SOURCE_N = r"(?:(?:passage|source|document)\s*\[?\d+\]?)"
_SUBJECT = rf"(?:{_SOURCE_N}|{_SOURCE})"

_LEAD_IN = re.compile(
    r"^(?:(?:the|this|your) question (?:asks|is asking|concerns|is about|wants|seeks|relates)\b"
    r"|(?:to|in order to) answer (?:this|the|your) question\b"
    r"|(?:here is|here's|here are|below is|the following is|the following are) (?:what|a|an|the|my|some)\b"
    r"|(?:let me|let's|i will|i'll|we will|we'll|i would like to) (?:answer|explain|summari[sz]e|look|check|find|"
    r"break|go|start|address|outline)\b"
    r"|(?:sure|certainly|of course|great question|good question)[!,.]?\s*(?:$|here\b|let\b|i\b)"
    r"|based on (?:the |this )?(?:information|passages?|context|text|excerpts?|sources?)(?: provided| given)?,? "
    r"(?:i will|i'll|we can|here is|here's|let me|the answer (?:is|can be) (?:as follows|below))\b)",
    re.IGNORECASE)
# a refusal is the answerer's (I, we) or about the sources or the question, never a claim about the project ("The Corps
# cannot determine jurisdiction", "Surveys could not find nesting sites" are claims)
_REFUSAL = re.compile(
    r"^(?:unfortunately,?\s*|however,?\s*)?(?:i|we)(?: am| are)? (?:cannot|can't|can not|am unable to|are unable to|"
    r"unable to|could not|couldn't|do not|don't) (?:answer|determine|tell|find|say|provide|confirm|know)\b"
    r"|\b(?:cannot|can't|can not|could not) be (?:determined|answered|found|confirmed)\b.{0,40}"
    rf"\b(?:passages?|context|text|excerpts?|sources?|information (?:provided|given))\b"
    rf"|^(?:unfortunately,?\s*|however,?\s*)?{_SUBJECT} (?:does not|doesn't|do not|don't|did not) (?:provide|contain|"
    r"include|give|offer|have|hold) (?:enough|sufficient|any|the|specific|an|a clear|adequate) (?:relevant )?"
    r"(?:information|details?|answer|data|evidence)\b(?! (?:on|about|regarding) (?!(?:this|the|your) question))"
    r"|\b(?:not enough|insufficient|no relevant) (?:information|details|data|evidence) (?:(?:is |was )?(?:provided |given )?"
    r"(?:in|from) (?:the |this )?(?:passages?|context|text|sources?)|to (?:answer|determine|tell) (?:this|the|your) "
    r"question)\b"
    r"|^i (?:don't|do not) know\b|^(?:unknown|not stated|not specified)\.?$",
    re.IGNORECASE)
_ABSENCE = re.compile(
    rf"^(?:however,\s*)?{_SUBJECT} (?:does not|doesn't|do not|don't|did not|never) (?:explicitly |specifically |directly )?"
    r"(?:mention|say|state|specify|discuss|address|include|describe|indicate|identify|list|name|provide|give|refer)"
    r"|\b(?:is|are|was|were) not (?:explicitly |specifically )?(?:mentioned|specified|stated|discussed|described|"
    r"addressed|provided|given|listed|identified|indicated) (?:in|by) (?:the |this |any )?(?:passages?|context|text|"
    r"sources?|documents?|excerpts?)"
    r"|\bthere is no (?:mention|information|discussion|reference) (?:of|about|on|to)\b"
    r"|\bno (?:mention|information|details?) (?:is|was|are|were) (?:made|given|provided) (?:of|about|on|regarding)\b",
    re.IGNORECASE)
_REMARK = re.compile(
    rf"^(?:overall,\s*|in summary,\s*|in general,\s*)?{_SUBJECT} (?:primarily |mainly |also |briefly )?"
    r"(?:discuss(?:es)?|describes?|talks? about|is about|are about|covers?|focus(?:es)? on|deals? with|outlines?|"
    r"provides? (?:information|details|an overview|context|background) (?:on|about|regarding)|relates? to|"
    r"concerns?|addresses|mentions?|explains?|contains? information (?:on|about)|presents?|summari[sz]es?)\b(?P<rest>.*)$",
    re.IGNORECASE)
_CONTENT = re.compile(r"\b(?:that|which|who|because|since|would|will|is|are|was|were|must|shall|has|have)\b|\d|:|;")


def kind(sentence: str) -> str:
    """The sentence's kind: ``claim``, ``lead-in``, ``refusal``, ``remark`` or ``absence``."""
    s = " ".join((sentence or "").split()).strip(" \"'“”")
    if not s:
        return LEAD_IN
    if _LEAD_IN.search(s):
        return LEAD_IN
    if _REFUSAL.search(s):
        return REFUSAL
    if _ABSENCE.search(s):
        return ABSENCE
    m = _REMARK.match(s)
    # a remark names a topic; "The passage describes that the site covers 865 acres" states a claim about the site
    if m and not _CONTENT.search(m.group("rest")) and len(m.group("rest").split()) <= 12:
        return REMARK
    return CLAIM
