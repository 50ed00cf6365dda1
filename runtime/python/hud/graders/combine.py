"""combine / combine_any / combine_all: turn SubScores into one grade (HUD SDK v6 semantics)."""
import asyncio
import inspect
import warnings
from typing import Any, Dict, List, Sequence, Set

from .results import EvaluationResult, SubScore


def unique_names(subscores: Sequence[SubScore]) -> List[str]:
    """Stable unique names: a repeated name gets `-1`, `-2`, ... skipping names already taken."""
    counts = {}  # type: Dict[str, int]
    for s in subscores:
        counts[s.name] = counts.get(s.name, 0) + 1
    reserved = set(counts)
    last_suffix = {}  # type: Dict[str, int]
    used = set()  # type: Set[str]
    out = []  # type: List[str]
    for s in subscores:
        if counts[s.name] == 1 and s.name not in used:
            final = s.name
        else:
            n = last_suffix.get(s.name, 0)
            while True:
                n += 1
                final = "{}-{}".format(s.name, n)
                if final not in used and final not in reserved:
                    break
            last_suffix[s.name] = n
        used.add(final)
        out.append(final)
    return out


def combine_subscores(subscores: List[SubScore]) -> EvaluationResult:
    """Weighted sum: positive weights normalised to sum 1, negative weights kept as penalties (not clamped)."""
    if not subscores:
        raise ValueError("combine(): subscores must not be empty")
    total = sum(s.weight for s in subscores if s.weight > 0)
    if total <= 0:
        raise ValueError(
            "combine(): subscores must include at least one positive weight ({})".format(
                ", ".join("{}={}".format(s.name, s.weight) for s in subscores))
        )
    if abs(total - 1.0) > 0.01:
        warnings.warn(
            "grader weights sum to {:.4f}, not 1.0; they are normalised, so the effective weights differ "
            "from the ones written".format(total),
            stacklevel=3,
        )
    out = [
        s.model_copy(update={"name": name, "weight": s.weight / total if s.weight > 0 else s.weight})
        for s, name in zip(subscores, unique_names(subscores))
    ]
    return EvaluationResult(reward=float(sum(s.value * s.weight for s in out)), done=True, subscores=out)


async def combine(*items: Any) -> EvaluationResult:
    """Resolves SubScores and awaitables (grader calls) in parallel, then combines them."""
    resolved = list(items)
    pending = [i for i, item in enumerate(resolved) if inspect.isawaitable(item)]
    for i, item in enumerate(resolved):
        if i not in pending and not isinstance(item, SubScore):
            hint = " (pass them one by one: combine(*subscores))" if isinstance(item, (list, tuple)) else ""
            raise TypeError(
                "combine(): expected SubScore or Awaitable[SubScore], got {}{}".format(type(item).__name__, hint)
            )
    if pending:
        done = await asyncio.gather(*[resolved[i] for i in pending])
        for i, value in zip(pending, done):
            resolved[i] = value
    return combine_subscores(resolved)


def _boolean(name: str, weight: float, subscores: Sequence[SubScore], value: float) -> SubScore:
    children = [s.model_copy(update={"name": n}) for n, s in zip(unique_names(subscores), subscores)]
    return SubScore(name=name, value=value, weight=weight, children=children)


def combine_any(weight: float, subscores: Sequence[SubScore], *, name: str = "any") -> SubScore:
    """Passes when any input passes (max); the inputs are kept as children. Synchronous, as in the SDK."""
    subscores = _check(subscores, "combine_any")
    return _boolean(name, weight, subscores, max(s.value for s in subscores))


def combine_all(weight: float, subscores: Sequence[SubScore], *, name: str = "all") -> SubScore:
    """Passes only when all inputs pass (min); the inputs are kept as children. Synchronous, as in the SDK."""
    subscores = _check(subscores, "combine_all")
    return _boolean(name, weight, subscores, min(s.value for s in subscores))


def _check(subscores: Any, caller: str) -> List[SubScore]:
    items = list(subscores)
    if not items:
        raise ValueError("{}(): subscores must not be empty".format(caller))
    for i, item in enumerate(items):
        if inspect.isawaitable(item):
            raise TypeError("{}(): item {} is an awaitable; it is synchronous in the HUD SDK v6, so await the "
                            "grader first (e.g. await asyncio.gather(...))".format(caller, i))
        if not isinstance(item, SubScore):
            raise TypeError("{}(): item {} is a {}, not a SubScore".format(caller, i, type(item).__name__))
    return items
