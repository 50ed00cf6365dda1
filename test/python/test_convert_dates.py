"""`date`, `datetime` and `time` arguments convert as the SDK converts them: checked against pydantic itself.

The SDK converts an argument with pydantic's `TypeAdapter`: `validate_python`,
then `validate_json` for a string that failed, else the value unchanged. The
bundled runtime must give the same value, type and UTC offset for every input
here, the corner cases found by probing pydantic and a few thousand
generated ones. The host's python3 carries pydantic 2 (the SDK peer needs it).
"""
import datetime
import random
import unittest
from typing import List, Optional

from hud.environment.convert import convert_or_keep

try:
    from pydantic import TypeAdapter, ValidationError
except ImportError as err:  # pragma: no cover - a machine without the SDK peer's pydantic
    raise ImportError("test_convert_dates compares with pydantic 2: install it into the default python3") from err

SEED = 20261201

CORNERS = [
    "2032-04-23", "2032-04-23T10:20:30", "2032-04-23 10:20", "2032-04-23_10:20", "2032-04-23t10:20:30z",
    "2032-04-23T10:20:30.5Z", "2032-04-23T10:20:30+02:00", "2032-04-23T10:20:30+0200", "2032-04-23T10:20:30-02",
    "2032-04-23T10:20:30-00:00", "2032-04-23T10:20:30+23:59", "2032-04-23T10:20:30+24:00", "2032-04-23T10:20:30,5",
    "2032-04-23T10:20:30.1234567891234", "2032-04-23T10:20:30.", "2032-04-23T10", "2032-04-23T1:20",
    "2032-04-23T24:00:00", "2032-04-23T10:20:60", "2032-04-23T00:00:00+05:00", "2032-04-23T00:00:00.000001",
    "2032-04-23Z", "2032-04-23 ", "  2032-04-23", "2032-4-23", "2032-02-30", "2024-02-29", "2023-02-29",
    "2032-13-01", "0000-01-01", "0001-01-01", "9999-12-31T23:59:59.9999999", "\uff12\uff10\uff13\uff12-04-23",
    "10:20", "10:20:30", "10:20:30.25", "10:20:30,5", "10:20:30Z", "10:20:30z", "10:20:30+01:00", "10:20:30+0100",
    "10:20:30-01", "10:20:30 Z", "10:20:30+2400", "10:20:30.", "24:00", "23:59:60", "10:2", "1:20", "10:20:3",
    "1020", "0", "1", "01", "-0", "+1", "-1", "1.", ".5", ".", "+", "-", "", "1.5.5", " 1", "1 ", "1_000",
    "1e9", "1.0e9", "1.5E+1", "1.e1", ".5e1", "1.0e-1", "2.5e-06", "10e-1", "inf", "nan", "0x10", "now",
    "1700000000", "1700000000.5", "1700000000.123456789", "20000000000", "20000000001", "-20000000001",
    "86400", "3600", "00000000000000000000001", "99999999999999999999999", "9223372036854775807",
    0, 1, -1, 3600, 3600.5, 86399.9, 86399.9999996, 86400, -86400, 1.5, -1.5, -0.5, -1.25, 0.9999995,
    1e-07, 5e-07, -5e-07, 1.5e-06, 2.5e-06, 3.5e-06, 3600.0000005, 1700000000, 1700000000.5,
    1700000000.1234567, 1700000000.0000005, 1700000000.9999995, 1700000000999.5, 20000000000, 20000000001,
    -20000000001, -20000000001.5, 2e10, 1e11, 253402300799, 253402300800, -62135596800, -62135596801,
    9e15, -9e15, 1e20, 10 ** 30, float("nan"), float("inf"), True, False, None, [2032, 4, 23],
    b"2032-04-23", b"10:20", datetime.datetime(2032, 4, 23), datetime.datetime(2032, 4, 23, 1),
    datetime.date(2032, 4, 23), datetime.time(1, 2),
]


def generated(seed: int, count: int) -> List[object]:
    rnd = random.Random(seed)
    out = []  # type: List[object]
    for _ in range(count):
        kind = rnd.randrange(6)
        if kind == 0:
            out.append(rnd.uniform(-3e10, 3e10))
        elif kind == 1:
            out.append(rnd.randrange(-10 ** 13, 10 ** 13))
        elif kind == 2:
            out.append(rnd.choice([rnd.uniform(0, 90000), rnd.randrange(0, 90000), rnd.uniform(-1, 1)]))
        elif kind == 3:
            digits = "{:04d}-{:02d}-{:02d}".format(rnd.randrange(0, 10000), rnd.randrange(0, 14), rnd.randrange(0, 33))
            out.append(digits + rnd.choice(["", "T", " ", "t"]) + time_text(rnd) * rnd.randrange(2))
        elif kind == 4:
            out.append(time_text(rnd))
        else:
            text = rnd.choice(["", "-", "+"]) + str(rnd.randrange(0, 10 ** rnd.randrange(1, 14))) + rnd.choice(
                ["", ".", "." + str(rnd.randrange(10 ** 6)), ".5e" + str(rnd.randrange(-3, 9))])
            if "." not in text or abs(float(text)) <= 2e10:
                out.append(text)
    return out


def time_text(rnd: random.Random) -> str:
    text = "{:02d}:{:02d}".format(rnd.randrange(0, 26), rnd.randrange(0, 62))
    if rnd.random() < 0.7:
        text += ":{:02d}".format(rnd.randrange(0, 62))
        if rnd.random() < 0.5:
            text += rnd.choice([".", ","]) + str(rnd.randrange(10 ** rnd.randrange(0, 10)))
    zone = rnd.randrange(4)
    if zone == 1:
        text += rnd.choice(["Z", "z"])
    elif zone == 2:
        text += "{}{:02d}{}{:02d}".format(rnd.choice("+-"), rnd.randrange(0, 26), rnd.choice(["", ":"]), rnd.randrange(0, 62))
    return text


def sdk_conversion(annotation: object, value: object) -> object:
    """The SDK's rule for one argument (its environment server's argument conversion)."""
    adapter = TypeAdapter(annotation)
    try:
        return adapter.validate_python(value)
    except ValidationError:
        if not isinstance(value, str):
            return value
    try:
        return adapter.validate_json(value)
    except ValidationError:
        return value


def shape(value: object) -> object:
    """What the template sees: the value, its type and (for aware values) its UTC offset."""
    offset = None
    if isinstance(value, (datetime.datetime, datetime.time)) and value.tzinfo is not None:
        offset = value.utcoffset() if isinstance(value, datetime.datetime) else value.tzinfo.utcoffset(None)
    if isinstance(value, float) and value != value:
        value = "nan"
    plain = value.replace(tzinfo=None) if isinstance(value, (datetime.datetime, datetime.time)) else value
    return type(value).__name__, plain, offset


class DatesLikePydanticTest(unittest.TestCase):
    def assert_same(self, annotation: object, values: List[object]) -> None:
        for value in values:
            with self.subTest(annotation=annotation, value=value):
                self.assertEqual(shape(convert_or_keep(annotation, value)), shape(sdk_conversion(annotation, value)))

    def test_corner_cases(self):
        for annotation in (datetime.datetime, datetime.date, datetime.time):
            self.assert_same(annotation, CORNERS)

    def test_generated_inputs(self):
        values = generated(SEED, 4000)
        for annotation in (datetime.datetime, datetime.date, datetime.time):
            self.assert_same(annotation, values)

    def test_inside_containers_and_optionals(self):
        self.assert_same(Optional[datetime.date], ["2032-04-23", None, "x"])
        self.assert_same(List[datetime.time], [["10:20", 3600], "[3600]", ["x"]])

    def test_examples_a_template_sees(self):
        utc = datetime.timezone.utc
        self.assertEqual(convert_or_keep(datetime.date, "2032-04-23"), datetime.date(2032, 4, 23))
        self.assertEqual(convert_or_keep(datetime.datetime, 1700000000), datetime.datetime(2023, 11, 14, 22, 13, 20, tzinfo=utc))
        self.assertEqual(convert_or_keep(datetime.time, "3600"), datetime.time(1, 0, tzinfo=utc))
        self.assertEqual(convert_or_keep(datetime.date, "2032-04-23T10:00"), "2032-04-23T10:00")


if __name__ == "__main__":
    unittest.main()
