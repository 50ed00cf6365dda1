"""Grader: a class whose `compute_score` is turned into a weighted SubScore."""
import inspect
import math
from typing import Any, Dict, Optional

from .results import SubScore


class Grader:
    """Subclass and implement `compute_score(cls, **kw)` returning a SubScore, a float or (float, info).

    `await MyGrader.grade(weight=0.5, name="tests", **kw)` runs it and returns
    a SubScore named `name`, else the class's `name`, with `weight`; the
    keyword arguments are recorded in `info["_parameters"]` (as the SDK does,
    so a grade can be reproduced).
    """

    name = "BaseGrader"

    @classmethod
    async def compute_score(cls, **kwargs: Any) -> Any:
        raise NotImplementedError("{} must implement compute_score(cls, **kw)".format(cls.__name__))

    @classmethod
    async def grade(cls, weight: float, name: Optional[str] = None, **kwargs: Any) -> SubScore:
        outcome = cls.compute_score(**kwargs)
        if inspect.isawaitable(outcome):
            outcome = await outcome
        if isinstance(outcome, tuple):
            if len(outcome) != 2:
                raise TypeError("grader '{}': compute_score returned a {}-tuple; return a float or (float, info)".format(
                    cls.name, len(outcome)))
            value, info = outcome
            outcome = SubScore(name=cls.name, value=float(value), info=info)
        elif not isinstance(outcome, SubScore):
            outcome = SubScore(name=cls.name, value=float(outcome))
        return outcome.model_copy(update={
            "name": name or cls.name,
            "weight": weight,
            "info": dict(outcome.info or {}, _parameters=json_safe_dict(kwargs)),
        })


def json_safe_dict(values: Dict[str, Any]) -> Dict[str, Any]:
    return {key: json_safe_value(value) for key, value in values.items()}


def json_safe_value(value: Any) -> Any:
    """JSON data for `value`; what JSON cannot hold becomes a `<Type: not serializable>` marker."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): json_safe_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_safe_value(v) for v in value]
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            return json_safe_value(dump(mode="json"))
        except Exception:
            pass
    return "<{}: not serializable>".format(type(value).__name__)
