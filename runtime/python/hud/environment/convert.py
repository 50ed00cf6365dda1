"""Task arguments and typed answers converted to their annotated types, as the SDK does.

The SDK validates each argument against its annotation in pydantic's lax
mode and, when that fails for a string, parses the string as JSON first;
anything still unconvertible is passed through unchanged. This is the same
rule for the types env files use (str, bytes, int, float, bool, None,
Literal, Optional/Union, list/tuple/set/dict of those, Enum, dataclasses,
Path, Decimal, UUID, date, datetime, time), in the stdlib. A class with pydantic's
`model_validate` (when the image has pydantic) is asked itself. See
docs/sdk-compatibility.md.
"""
import dataclasses
import datetime
import decimal
import enum
import inspect
import json
import pathlib
import re
import typing
import uuid
from typing import Any, Callable, Dict

from .convert_dates import to_date, to_datetime, to_time
from .convert_error import ConversionError

_BOOL_WORDS = {
    "0": False, "off": False, "f": False, "false": False, "n": False, "no": False,
    "1": True, "on": True, "t": True, "true": True, "y": True, "yes": True,
}
_INTEGRAL_TEXT = re.compile(r"^\s*[+-]?\d[\d_]*(\.0+)?\s*$")


def coerce_args(fn: Callable[..., Any], args: Dict[str, Any]) -> Dict[str, Any]:
    """`args` with each value converted to its parameter's annotation where it can be."""
    signature = inspect.signature(fn)
    hints = type_hints(fn)
    out = {}  # type: Dict[str, Any]
    for name, value in args.items():
        param = signature.parameters.get(name)
        annotation = hints.get(name, param.annotation if param is not None else inspect.Parameter.empty)
        out[name] = convert_or_keep(annotation, value)
    return out


def convert_or_keep(annotation: Any, value: Any) -> Any:
    if annotation in (inspect.Parameter.empty, Any) or isinstance(annotation, str):
        return value
    try:
        return validate_python(annotation, value)
    except ConversionError:
        if not isinstance(value, str):
            return value
    try:
        return validate_json(annotation, value)
    except ConversionError:
        return value


def type_hints(fn: Callable[..., Any]) -> Dict[str, Any]:
    try:
        return typing.get_type_hints(fn)
    except Exception:
        return {}


def validate_json(annotation: Any, text: Any) -> Any:
    model = getattr(annotation, "model_validate_json", None)
    if callable(model):
        try:
            return model(text)
        except Exception as err:
            raise ConversionError(str(err)) from None
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as err:
        raise ConversionError(str(err)) from None
    return validate_python(annotation, data)


def validate_python(annotation: Any, value: Any) -> Any:
    if annotation in (inspect.Parameter.empty, Any, object):
        return value
    model = getattr(annotation, "model_validate", None)
    if callable(model) and isinstance(annotation, type):
        try:
            return model(value)
        except Exception as err:
            raise ConversionError(str(err)) from None
    if annotation is None or annotation is type(None):
        if value is None:
            return None
        raise ConversionError("expected None")
    origin = typing.get_origin(annotation)
    type_args = typing.get_args(annotation)
    if origin is typing.Union or type(annotation).__name__ == "UnionType":
        return _union(type_args, value)
    if origin is typing.Literal:
        return _literal(type_args, value)
    if origin in (list, set, frozenset, tuple):
        return _sequence(origin, type_args, value)
    if origin is dict:
        return _mapping(type_args, value)
    if origin is not None and getattr(origin, "__module__", "") == "collections.abc":
        return value
    if annotation in _SCALARS:
        return _SCALARS[annotation](value)
    if annotation in _TEMPORAL:
        return _TEMPORAL[annotation](value)
    if annotation in (list, tuple, set, frozenset):
        return _sequence(annotation, (), value)
    if annotation is dict:
        return _mapping((), value)
    if dataclasses.is_dataclass(annotation) and isinstance(annotation, type):
        return _dataclass(annotation, value)
    if isinstance(annotation, type) and issubclass(annotation, tuple) and hasattr(annotation, "_fields"):
        return _named_tuple(annotation, value)
    if annotation in _TEXT_TYPES:
        return _from_text(annotation, value)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        if isinstance(value, annotation):
            return value
        try:
            return annotation(value)
        except ValueError as err:
            raise ConversionError(str(err)) from None
    if isinstance(annotation, type):
        if isinstance(value, annotation):
            return value
        raise ConversionError("expected {}".format(annotation.__name__))
    return value


def _literal(allowed_values: Any, value: Any) -> Any:
    for allowed in allowed_values:
        if type(value) is type(allowed) and value == allowed:
            return allowed
    # Lax mode: an int literal also takes a bool or an integral float equal to it, a bool literal 0/1 (int or float).
    numeric = isinstance(value, (int, float)) and (not isinstance(value, float) or value.is_integer())
    for allowed in allowed_values:
        if type(allowed) is int and numeric and (isinstance(value, (bool, float))) and value == allowed:
            return allowed
        if type(allowed) is bool and numeric and not isinstance(value, bool) and value == allowed:
            return allowed
    raise ConversionError("expected one of {!r}".format(allowed_values))


def _dataclass(cls: Any, value: Any) -> Any:
    """A dict becomes the dataclass, each field converted to its type; unknown keys are ignored."""
    if isinstance(value, cls):
        return value
    if not isinstance(value, dict):
        raise ConversionError("expected {} fields as an object".format(cls.__name__))
    hints = type_hints(cls)
    values = {}  # type: Dict[str, Any]
    for field in dataclasses.fields(cls):
        if not field.init:
            continue
        if field.name in value:
            values[field.name] = validate_python(hints.get(field.name, Any), value[field.name])
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            raise ConversionError("{} needs {}".format(cls.__name__, field.name))
    return cls(**values)


def _named_tuple(cls: Any, value: Any) -> Any:
    """A list (by position) or an object (by name) becomes the NamedTuple, each field converted to its type."""
    if isinstance(value, cls):
        return value
    hints = type_hints(cls)
    if isinstance(value, (list, tuple)):
        if len(value) > len(cls._fields):
            raise ConversionError("{} takes at most {} items".format(cls.__name__, len(cls._fields)))
        value = dict(zip(cls._fields, value))
    if not isinstance(value, dict):
        raise ConversionError("expected {} as a list or an object".format(cls.__name__))
    values = {}  # type: Dict[str, Any]
    for name in cls._fields:
        if name in value:
            values[name] = validate_python(hints.get(name, Any), value[name])
        elif name not in cls._field_defaults:
            raise ConversionError("{} needs {}".format(cls.__name__, name))
    return cls(**values)


def _from_text(annotation: Any, value: Any) -> Any:
    if isinstance(value, annotation):
        return value
    if annotation is decimal.Decimal and isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise ConversionError("expected text for {}".format(annotation.__name__))
    try:
        converted = annotation(value.strip() if annotation is decimal.Decimal else value)
    except (ValueError, decimal.InvalidOperation) as err:
        raise ConversionError(str(err)) from None
    if isinstance(converted, decimal.Decimal) and not converted.is_finite():
        raise ConversionError("expected a finite decimal")
    return converted


_TEXT_TYPES = (pathlib.Path, pathlib.PurePath, decimal.Decimal, uuid.UUID)


def _union(members: Any, value: Any) -> Any:
    # Smart mode: a member the value already is wins over one it converts to.
    for member in members:
        exact = type(None) if member is None else member
        if isinstance(exact, type) and type(value) is exact:
            return value
    for member in members:
        try:
            return validate_python(member, value)
        except ConversionError:
            continue
    raise ConversionError("matches no member of the union")


def _sequence(origin: Any, type_args: Any, value: Any) -> Any:
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise ConversionError("expected a sequence")
    items = list(value)
    if origin is tuple and type_args and not (len(type_args) == 2 and type_args[1] is Ellipsis):
        if len(type_args) != len(items):
            raise ConversionError("expected {} items".format(len(type_args)))
        return tuple(validate_python(t, v) for t, v in zip(type_args, items))
    item_type = type_args[0] if type_args else Any
    converted = [validate_python(item_type, v) for v in items]
    return {list: list, tuple: tuple, set: set, frozenset: frozenset}[origin](converted)


def _mapping(type_args: Any, value: Any) -> Any:
    if not isinstance(value, dict):
        raise ConversionError("expected an object")
    key_type, value_type = type_args if len(type_args) == 2 else (Any, Any)
    return {validate_python(key_type, k): validate_python(value_type, v) for k, v in value.items()}


def _to_str(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            pass
    raise ConversionError("expected a string")


def _to_bytes(value: Any) -> bytes:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    raise ConversionError("expected bytes")


def _to_int(value: Any) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INTEGRAL_TEXT.match(value):
        return int(value.strip().split(".")[0].replace("_", ""))
    raise ConversionError("expected an integer")


def _to_float(value: Any) -> float:
    if isinstance(value, (bool, int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            pass
    raise ConversionError("expected a number")


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _BOOL_WORDS:
        return _BOOL_WORDS[value.strip().lower()]
    raise ConversionError("expected a boolean")


_SCALARS = {str: _to_str, bytes: _to_bytes, int: _to_int, float: _to_float, bool: _to_bool}  # type: Dict[Any, Callable[[Any], Any]]
_TEMPORAL = {datetime.datetime: to_datetime, datetime.date: to_date, datetime.time: to_time}  # type: Dict[Any, Callable[[Any], Any]]
