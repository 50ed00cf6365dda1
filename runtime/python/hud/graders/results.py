"""SubScore and EvaluationResult: what graders return and templates yield."""
import math
from typing import Any, Dict, List, Optional


class SubScore:
    """One named part of a grade. `value` is in [0, 1]; a negative `weight` is a penalty.

    The SDK calls the metadata field `info`; both names are accepted and
    refer to the same dict.
    """

    def __init__(
        self,
        name: str,
        value: float,
        weight: float = 1.0,
        metadata: Optional[Dict[str, Any]] = None,
        children: Optional[List["SubScore"]] = None,
        info: Optional[Dict[str, Any]] = None,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError("SubScore needs a non-empty name")
        value = _number(value, "SubScore '{}' value".format(name))
        if value < 0.0 or value > 1.0:
            raise ValueError("SubScore '{}': value {} is outside [0, 1]".format(name, value))
        self.name = name
        self.value = value
        self.weight = _number(weight, "SubScore '{}' weight".format(name))
        merged = None  # type: Optional[Dict[str, Any]]
        if metadata is not None or info is not None:
            merged = dict(info or {})
            merged.update(metadata or {})
        self.metadata = merged
        self.children = list(children) if children is not None else None

    @property
    def info(self) -> Optional[Dict[str, Any]]:
        return self.metadata

    @info.setter
    def info(self, value: Optional[Dict[str, Any]]) -> None:
        self.metadata = value

    def copy(self, **changes: Any) -> "SubScore":
        fields = {
            "name": self.name,
            "value": self.value,
            "weight": self.weight,
            "metadata": self.metadata,
            "children": self.children,
        }
        fields.update(changes)
        return SubScore(**fields)

    def to_dict(self) -> Dict[str, Any]:
        out = {"name": self.name, "value": self.value, "weight": self.weight}  # type: Dict[str, Any]
        if self.metadata is not None:
            out["metadata"] = self.metadata
        if self.children is not None:
            out["children"] = [c.to_dict() for c in self.children]
        return out

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, SubScore) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return "SubScore(name={!r}, value={!r}, weight={!r})".format(self.name, self.value, self.weight)


class EvaluationResult:
    """A full grade. `reward` is sent as `score` on the wire."""

    def __init__(
        self,
        reward: float = 0.0,
        done: bool = True,
        subscores: Optional[List[SubScore]] = None,
        info: Optional[Dict[str, Any]] = None,
        content: Any = None,
        isError: bool = False,
    ) -> None:
        self.reward = _number(reward, "EvaluationResult reward")
        self.done = bool(done)
        self.subscores = list(subscores) if subscores is not None else None
        self.info = dict(info) if info is not None else {}
        self.content = content
        self.isError = bool(isError)

    @classmethod
    def from_float(cls, value: float) -> "EvaluationResult":
        return cls(reward=float(value))

    def to_wire(self) -> Dict[str, Any]:
        """The grade frame: `score` plus the optional fields."""
        frame = {"score": self.reward, "done": self.done, "info": self.info, "isError": self.isError}  # type: Dict[str, Any]
        if self.subscores is not None:
            frame["subscores"] = [s.to_dict() for s in self.subscores]
        if self.content is not None:
            frame["content"] = self.content
        return frame

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
