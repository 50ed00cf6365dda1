"""combine / combine_any / combine_all: turn SubScores into one grade."""
import asyncio
import inspect
from collections import Counter
from typing import Any, Iterable, List, Sequence

from .results import EvaluationResult, SubScore


async def _resolve(items: Iterable[Any], caller: str) -> List[SubScore]:
    items = list(items)
    pending = [i for i, item in enumerate(items) if inspect.isawaitable(item)]
    if pending:
        done = await asyncio.gather(*[items[i] for i in pending])
        for i, value in zip(pending, done):
            items[i] = value
    for i, item in enumerate(items):
        if not isinstance(item, SubScore):
            raise TypeError(
                "{}: item {} is a {}, not a SubScore (use a grader's .grade(...) or SubScore(name, value, weight))".format(
                    caller, i, type(item).__name__
                )
            )
    return items


def _flatten(items: Sequence[Any]) -> List[Any]:
    # combine([a, b]) and combine(a, b) mean the same.
    if len(items) == 1 and isinstance(items[0], (list, tuple)):
        return list(items[0])
    return list(items)


async def combine(*items: Any) -> EvaluationResult:
    """Weighted sum: positive weights normalised to sum 1, negative weights kept as penalties.

    The reward is not clamped, so penalties can take it below 0.
    """
    subs = await _resolve(_flatten(items), "combine()")
    if not subs:
        raise ValueError("combine() needs at least one SubScore")
    total = sum(s.weight for s in subs if s.weight > 0)
    if total <= 0:
        raise ValueError(
            "combine(): no SubScore has a positive weight ({}); give at least one a weight > 0".format(
                ", ".join("{}={}".format(s.name, s.weight) for s in subs)
            )
        )
    counts = Counter(s.name for s in subs)
    seen = Counter()  # type: Counter
    out = []  # type: List[SubScore]
    for s in subs:
        name = s.name
        if counts[name] > 1:
            seen[name] += 1
            name = "{}-{}".format(name, seen[name])
        weight = s.weight / total if s.weight > 0 else s.weight
        out.append(s.copy(name=name, weight=weight))
    reward = sum(s.value * s.weight for s in out)
    return EvaluationResult(reward=reward, subscores=out)


async def combine_any(weight: float, subs: Iterable[Any], name: str = "any") -> SubScore:
    """Best of `subs` (max value); the inputs are kept as children."""
    resolved = await _resolve(subs, "combine_any()")
    if not resolved:
        raise ValueError("combine_any() needs at least one SubScore")
    return SubScore(name, max(s.value for s in resolved), weight, children=resolved)


async def combine_all(weight: float, subs: Iterable[Any], name: str = "all") -> SubScore:
    """Worst of `subs` (min value); the inputs are kept as children."""
    resolved = await _resolve(subs, "combine_all()")
    if not resolved:
        raise ValueError("combine_all() needs at least one SubScore")
    return SubScore(name, min(s.value for s in resolved), weight, children=resolved)
