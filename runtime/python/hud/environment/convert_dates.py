"""`date`, `datetime` and `time` arguments converted the way the SDK's pydantic does it in lax mode.

Text is read in pydantic's own grammar (stricter than `fromisoformat`): a
date is `YYYY-MM-DD`; a datetime is a date, or a date, a separator (`T`,
`t`, `_` or a space) and a time; a time is `HH:MM`, optionally `:SS` and a
fraction after `.` or `,` (cut, not rounded, to microseconds), then
optionally `Z`/`z` or an offset `+HH:MM`/`+HHMM` under 24 hours. Numbers
(and text that is a plain number) are Unix timestamps in UTC: seconds, or
milliseconds beyond 2e10 in either direction. A `date` takes a datetime
only at exactly midnight; a `time` takes seconds since midnight (a number,
not text). Booleans are refused. See docs/sdk-compatibility.md.
"""
import datetime
import math
import re
from typing import Any, Optional

from .convert_error import ConversionError

_TIME = (
    r"(?P<hour>\d\d):(?P<minute>\d\d)(?::(?P<second>\d\d)(?:[.,](?P<fraction>\d+))?)?"
    r"(?:(?P<utc>[Zz])|(?P<sign>[+-])(?P<off_hour>\d\d):?(?P<off_minute>\d\d))?"
)
_DATE = r"(?P<year>\d{4})-(?P<month>\d\d)-(?P<day>\d\d)"
_DATE_TEXT = re.compile(_DATE + r"(?:[Tt _]" + _TIME + r")?\Z", re.ASCII)
_TIME_TEXT = re.compile(_TIME + r"\Z", re.ASCII)
# pydantic takes an integer, or a number with a point (and only then an exponent), as a timestamp.
_NUMBER_TEXT = re.compile(r"[+-]?(?:\d+|(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?)\Z", re.ASCII)
_MILLISECONDS_BEYOND = 2e10
_I64_MAX = 2 ** 63 - 1
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def to_datetime(value: Any) -> datetime.datetime:
    if isinstance(value, datetime.datetime):
        return value
    if isinstance(value, datetime.date):
        return datetime.datetime(value.year, value.month, value.day)
    return _parse_datetime(value)


def to_date(value: Any) -> datetime.date:
    if isinstance(value, datetime.datetime):
        return _exact_date(value)
    if isinstance(value, datetime.date):
        return value
    return _exact_date(_parse_datetime(value))


def to_time(value: Any) -> datetime.time:
    if isinstance(value, datetime.time):
        return value
    if _is_number(value):
        if isinstance(value, float) and not math.isfinite(value):
            raise ConversionError("a time in seconds is a finite number")
        if value < 0:
            raise ConversionError("a time in seconds is not negative")
        micros = _microseconds(value, 1000000)
        if micros >= 86400 * 1000000:
            raise ConversionError("a time in seconds is under 86400")
        return (datetime.datetime.min + datetime.timedelta(microseconds=micros)).time().replace(
            tzinfo=datetime.timezone.utc)
    match = _TIME_TEXT.match(_text(value))
    if match is None:
        raise ConversionError("expected a time as HH:MM[:SS[.ffffff]][Z|+HH:MM]")
    return _time_of(match)


def _parse_datetime(value: Any) -> datetime.datetime:
    if _is_number(value):
        return _from_timestamp(value)
    text = _text(value)
    if _NUMBER_TEXT.match(text):
        number = float(text) if any(c in text for c in ".eE") else int(text)
        if isinstance(number, int) and abs(number) > _I64_MAX:
            raise ConversionError("timestamp out of range")
        return _from_timestamp(number, from_text=True)
    match = _DATE_TEXT.match(text)
    if match is None:
        raise ConversionError("expected a date as YYYY-MM-DD, a datetime or a timestamp")
    try:
        day = datetime.date(int(match.group("year")), int(match.group("month")), int(match.group("day")))
    except ValueError as err:
        raise ConversionError(str(err)) from None
    if match.group("hour") is None:
        return datetime.datetime(day.year, day.month, day.day)
    return datetime.datetime.combine(day, _time_of(match))


def _time_of(match: Any) -> datetime.time:
    hour, minute = int(match.group("hour")), int(match.group("minute"))
    second = int(match.group("second") or 0)
    if hour > 23 or minute > 59 or second > 59:
        raise ConversionError("time out of range")
    micros = int((match.group("fraction") or "")[:6].ljust(6, "0"))
    return datetime.time(hour, minute, second, micros, tzinfo=_offset(match))


def _offset(match: Any) -> Optional[datetime.tzinfo]:
    if match.group("utc"):
        return datetime.timezone.utc
    if match.group("sign") is None:
        return None
    hours, minutes = int(match.group("off_hour")), int(match.group("off_minute"))
    if hours > 23 or minutes > 59:
        raise ConversionError("a timezone offset is under 24 hours")
    offset = datetime.timedelta(hours=hours, minutes=minutes)
    return datetime.timezone(-offset if match.group("sign") == "-" else offset)


def _from_timestamp(number: Any, from_text: bool = False) -> datetime.datetime:
    if isinstance(number, float) and not math.isfinite(number):
        raise ConversionError("a timestamp is a finite number")
    if from_text and isinstance(number, float):
        # Text with a point: seconds, or milliseconds, or microseconds (two steps at most); its
        # fraction is read as the positive remainder (-1.25 is 1.25 s before the epoch).
        for _ in range(2):
            if abs(number) > _MILLISECONDS_BEYOND:
                number /= 1000
        whole = math.floor(number)
        micros = whole * 1000000 + _round_half_away((number - whole) * 1000000)
    elif abs(number) > _MILLISECONDS_BEYOND:
        micros = _microseconds(number, 1000)
    else:
        micros = _microseconds(number, 1000000)
    try:
        return _EPOCH + datetime.timedelta(microseconds=micros)
    except OverflowError:
        raise ConversionError("dates are between years 1 and 9999") from None


def _microseconds(number: Any, per_unit: int) -> int:
    """A numeric timestamp in microseconds, split the way pydantic splits a number: the whole units
    (floor) plus the fraction's magnitude, so -1.25 s is read as -2 s + 0.25 s; kept as it does."""
    if isinstance(number, int):
        return number * per_unit
    return math.floor(number) * per_unit + _round_half_away(abs(math.fmod(number, 1.0)) * per_unit)


def _round_half_away(x: float) -> int:
    whole = math.floor(x)
    return whole + 1 if x - whole >= 0.5 else whole


def _exact_date(moment: datetime.datetime) -> datetime.date:
    if (moment.hour, moment.minute, moment.second, moment.microsecond) != (0, 0, 0, 0):
        raise ConversionError("a datetime given for a date has zero time")
    return moment.date()


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _text(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise ConversionError("expected text") from None
    if isinstance(value, str):
        return value
    raise ConversionError("expected text or a number")
