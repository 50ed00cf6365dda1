"""SubScore and EvaluationResult: what graders return and templates yield.

Both take keywords only, as in the HUD SDK v6, and serialise to the SDK's
wire shape: every field present, unset ones as null, a subscore's metadata
under `info` (docs/sdk-compatibility.md).
"""
import copy
import math
from typing import Any, Dict, List, Optional

from .json_mode import json_mode

_SUBSCORE_FIELDS = ("name", "weight", "value", "children", "info")


class SubScore:
    """One named part of a grade. `value` is in [0, 1]; a negative `weight` is a penalty.

    The SDK calls the metadata field `info`; `metadata=` is accepted on input
    and `.metadata` reads the same dict.
    """

    def __init__(self, *args: Any, **fields: Any) -> None:
        if args:
            raise TypeError(
                "SubScore takes keywords only, as in the HUD SDK: SubScore(name=..., value=..., weight=...)"
            )
        if "metadata" in fields:
            metadata = fields.pop("metadata")
            if fields.get("info") is None:
                fields["info"] = metadata
        unknown = sorted(set(fields) - set(_SUBSCORE_FIELDS))
        if unknown:
            raise TypeError("SubScore: unexpected field(s) {} (fields: name, value, weight, children, info)".format(
                ", ".join(unknown)))
        for required in ("name", "value"):
            if required not in fields:
                raise TypeError("SubScore needs {}=".format(required))
        name = fields["name"]
        if not isinstance(name, str):
            raise TypeError("SubScore name must be a string, got {!r}".format(name))
        value = _number(fields["value"], "SubScore '{}' value".format(name))
        if value < 0.0 or value > 1.0:
            raise ValueError("SubScore '{}': value {} is outside [0, 1]".format(name, value))
        self.name = name
        self.value = value
        self.weight = _number(fields.get("weight", 1.0), "SubScore '{}' weight".format(name))
        children = fields.get("children")
        self.children = [_as_subscore(c) for c in children] if children is not None else None
        info = fields.get("info")
        if info is not None and not isinstance(info, dict):
            raise TypeError("SubScore '{}': info must be a dict, got {}".format(name, type(info).__name__))
        self.info = info  # type: Optional[Dict[str, Any]]

    @property
    def metadata(self) -> Optional[Dict[str, Any]]:
        return self.info

    @metadata.setter
    def metadata(self, value: Optional[Dict[str, Any]]) -> None:
        self.info = value

    @property
    def score(self) -> float:
        """The SDK's deprecated alias of `value`."""
        return self.value

    def model_copy(self, update: Optional[Dict[str, Any]] = None, deep: bool = False) -> "SubScore":
        fields = {k: getattr(self, k) for k in _SUBSCORE_FIELDS}
        if deep:
            fields = copy.deepcopy(fields)
        fields.update(update or {})
        return SubScore(**fields)

    def copy(self, **changes: Any) -> "SubScore":
        return self.model_copy(update=changes)

    def model_dump(self, mode: str = "python", exclude_none: bool = False, **_: Any) -> Dict[str, Any]:
        out = {
            "name": self.name,
            "weight": self.weight,
            "value": self.value,
            "children": [c.model_dump(mode, exclude_none) for c in self.children] if self.children is not None else None,
            "info": json_mode(self.info) if mode == "json" else self.info,
        }  # type: Dict[str, Any]
        return {k: v for k, v in out.items() if v is not None} if exclude_none else out

    @classmethod
    def model_validate(cls, data: Any) -> "SubScore":
        return _as_subscore(data)

    def to_dict(self) -> Dict[str, Any]:
        return self.model_dump()

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, SubScore) and self.model_dump() == other.model_dump()

    def __repr__(self) -> str:
        return "SubScore(name={!r}, weight={!r}, value={!r})".format(self.name, self.weight, self.value)


def _as_subscore(value: Any) -> SubScore:
    if isinstance(value, SubScore):
        return value
    if isinstance(value, dict):
        return SubScore(**value)
    raise TypeError("expected a SubScore or a dict of its fields, got {}".format(type(value).__name__))


class EvaluationResult:
    """A full grade. `reward` is sent as `score` on the wire; extra keyword fields travel along."""

    def __init__(
        self,
        reward: float = 0.0,
        done: bool = True,
        content: Optional[str] = None,
        info: Optional[Dict[str, Any]] = None,
        isError: bool = False,
        subscores: Optional[List[Any]] = None,
        **extra: Any
    ) -> None:
        self.reward = _number(reward, "EvaluationResult reward")
        self.done = bool(done)
        if content is not None and not isinstance(content, str):
            raise TypeError("EvaluationResult content must be text or None, got {}".format(type(content).__name__))
        self.content = content
        self.info = dict(info) if info is not None else {}
        self.isError = bool(isError)
        self.subscores = [_as_subscore(s) for s in subscores] if subscores is not None else None
        self.extra = extra

    @classmethod
    def from_float(cls, value: float) -> "EvaluationResult":
        return cls(reward=float(value), done=True)

    def model_dump(self, mode: str = "python", exclude_none: bool = False, **_: Any) -> Dict[str, Any]:
        out = {
            "reward": self.reward,
            "done": self.done,
            "content": self.content,
            "info": self.info,
            "isError": self.isError,
            "subscores": [s.model_dump(mode, exclude_none) for s in self.subscores] if self.subscores is not None else None,
        }  # type: Dict[str, Any]
        out.update(self.extra)
        if mode == "json":
            out["info"] = json_mode(out["info"])
            out.update({key: json_mode(value) for key, value in self.extra.items()})
        return {k: v for k, v in out.items() if v is not None} if exclude_none else out

    @classmethod
    def model_validate(cls, data: Any) -> "EvaluationResult":
        if isinstance(data, EvaluationResult):
            return data
        if not isinstance(data, dict):
            raise TypeError("EvaluationResult.model_validate needs a dict, got {}".format(type(data).__name__))
        return cls(**data)

    def to_wire(self) -> Dict[str, Any]:
        """The grade frame as the SDK's server sends it: the model's fields, `reward` renamed `score`."""
        frame = self.model_dump(mode="json")
        frame["score"] = frame.pop("reward")
        return frame

    def __getattr__(self, name: str) -> Any:
        extra = self.__dict__.get("extra") or {}
        if name in extra:
            return extra[name]
        raise AttributeError("'EvaluationResult' object has no attribute '{}'".format(name))

    def __repr__(self) -> str:
        return "EvaluationResult(reward={!r}, subscores={!r})".format(self.reward, self.subscores)


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise TypeError("{} must be a number, got {!r}".format(what, value)) from None
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        raise ValueError("{} must be a finite number, got {}".format(what, value))
    return value
