"""Grader: a class whose `compute_score` is turned into a weighted SubScore."""
import inspect
from typing import Any, Dict, Optional, Tuple

from .results import SubScore


class Grader:
    """Subclass and implement `compute_score(cls, **kw)` returning a float or (float, metadata).

    `await MyGrader.grade(weight=0.5, name="tests", **kw)` runs it and
    returns a SubScore named `name`, else the class's `name`, else the
    class name.
    """

    name = None  # type: Optional[str]

    @classmethod
    async def compute_score(cls, **kwargs: Any) -> Any:
        raise NotImplementedError("{} must implement compute_score(cls, **kw)".format(cls.__name__))

    @classmethod
    async def grade(cls, weight: float = 1.0, name: Optional[str] = None, **kwargs: Any) -> SubScore:
        return await cls._grade(weight, name, kwargs)

    @classmethod
    async def _grade(cls, weight: float, name: Optional[str], kwargs: Dict[str, Any]) -> SubScore:
        label = name or cls.name or cls.__name__
        outcome = cls.compute_score(**kwargs)
        if inspect.isawaitable(outcome):
            outcome = await outcome
        value, metadata = _split(outcome, label)
        return SubScore(label, value, weight, metadata=metadata)


def _split(outcome: Any, label: str) -> Tuple[float, Optional[Dict[str, Any]]]:
    if isinstance(outcome, tuple):
        if len(outcome) != 2:
            raise TypeError("grader '{}': compute_score returned a {}-tuple; return a float or (float, metadata)".format(label, len(outcome)))
        value, metadata = outcome
        if metadata is not None and not isinstance(metadata, dict):
            raise TypeError("grader '{}': metadata must be a dict, got {}".format(label, type(metadata).__name__))
        return value, metadata
    return outcome, None
