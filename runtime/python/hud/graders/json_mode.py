"""Result models' values as the SDK's pydantic writes them in JSON mode.

A grade's `info` (and any extra field) may hold values JSON has no type for;
the SDK's models turn the usual ones into JSON data (a dataclass into an
object, a set into a list, a date into ISO text, a float that is not finite
into null) and refuse anything else. See docs/hud-protocol.md.
"""
import dataclasses
import datetime
import decimal
import enum
import math
import pathlib
import uuid
from typing import Any


def json_mode(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value.value if isinstance(value, enum.Enum) else value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, enum.Enum):
        return json_mode(value.value)
    if isinstance(value, dict):
        return {_key(k): json_mode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_mode(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8")
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return _duration(value)
    if isinstance(value, (pathlib.PurePath, decimal.Decimal, uuid.UUID)):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: json_mode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return json_mode(dump(mode="json"))
    raise TypeError("Unable to serialize unknown type: {}".format(type(value)))


def _key(key: Any) -> str:
    converted = json_mode(key)
    return converted if isinstance(converted, str) else str(converted)


def _duration(delta: datetime.timedelta) -> str:
    """ISO 8601 duration, e.g. `PT1M30S`, `P1DT2H`, `-PT5S`."""
    sign = "-" if delta < datetime.timedelta(0) else ""
    delta = abs(delta)
    hours, rest = divmod(delta.seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    whole = "{}.{:06d}".format(seconds, delta.microseconds).rstrip("0").rstrip(".") if delta.microseconds else str(seconds)
    days = "{}D".format(delta.days) if delta.days else ""
    time = "".join(
        part for part in ("{}H".format(hours) if hours else "", "{}M".format(minutes) if minutes else "",
                          "{}S".format(whole) if seconds or delta.microseconds else "")
    )
    if not days and not time:
        time = "0S"
    return "{}P{}{}".format(sign, days, "T" + time if time else "")
