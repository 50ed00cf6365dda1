"""Text comparisons for grading answers (HUD SDK v6 semantics).

The answer may be anything (it is turned into text); what it is compared with
is used as given, so a number where text is expected fails as it does under
the SDK instead of being quietly turned into text (docs/hud-protocol.md).
"""
import re
from collections import Counter
from typing import Any, Iterable

_PUNCTUATION = re.compile(r"[^\w\s]")
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
_NUMBER = re.compile(r"-?\d+\.?\d*")


def normalize(text: Any) -> str:
    """Lowercase, punctuation to spaces (`_` and Unicode letters kept), articles dropped, spaces collapsed."""
    out = str(text).lower()
    out = _PUNCTUATION.sub(" ", out)
    out = _ARTICLES.sub(" ", out)
    out = _SPACES.sub(" ", out)
    return out.strip()


def exact_match(answer: Any, expected: Any, *, normalize_text: bool = True) -> float:
    if normalize_text:
        return 1.0 if normalize(answer) == normalize(expected) else 0.0
    return 1.0 if str(answer).strip().lower() == expected.strip().lower() else 0.0


def _needle(text: Any, case_sensitive: bool) -> Any:
    return text if case_sensitive else text.lower()


def contains(answer: Any, substring: str, *, case_sensitive: bool = False) -> float:
    return 1.0 if _needle(substring, case_sensitive) in _needle(str(answer), case_sensitive) else 0.0


def contains_any(answer: Any, substrings: Iterable[str], *, case_sensitive: bool = False) -> float:
    haystack = _needle(str(answer), case_sensitive)
    needles = [_needle(s, case_sensitive) for s in substrings]
    return 1.0 if any(s in haystack for s in needles) else 0.0


def contains_all(answer: Any, substrings: Iterable[str], *, case_sensitive: bool = False) -> float:
    haystack = _needle(str(answer), case_sensitive)
    needles = [_needle(s, case_sensitive) for s in substrings]
    return 1.0 if all(s in haystack for s in needles) else 0.0


def numeric_match(answer: Any, expected: Any, *, tolerance: float = 0.0) -> float:
    """1.0 if the first number in `answer` is within `tolerance` of `expected`."""
    found = _NUMBER.search(str(answer))
    if found is None:
        return 0.0
    try:
        value = float(found.group(0))
    except ValueError:
        return 0.0
    return 1.0 if abs(value - expected) <= tolerance else 0.0


def f1_score(answer: Any, reference: Any) -> float:
    """Token F1 over normalized words, overlap counted with multiplicity."""
    predicted = normalize(answer).split()
    gold = normalize(reference).split()
    if not predicted or not gold:
        return 0.0
    overlap = sum((Counter(predicted) & Counter(gold)).values())
    if overlap == 0:
        return 0.0
    precision = overlap / len(predicted)
    recall = overlap / len(gold)
    return 2 * precision * recall / (precision + recall)
