"""How task arguments reach a template: conversion to the annotated types, defaults, and calls that do not fit.

Every template's prompt spells out what it received (type and value of each
parameter), so a difference in conversion shows as a different prompt. Kept
to the standard library: the bundled runtime's own python has no pydantic,
so pydantic models as annotations are not probed here.
"""
import dataclasses
import datetime
import decimal
import enum
import pathlib
import uuid
from typing import Dict, List, Literal, NamedTuple, Optional, Tuple, Union

from hud import Environment

env = Environment(name="arguments")


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


class Span(NamedTuple):
    start: int
    label: str = "span"


def describe(**received):
    def one(value):
        if isinstance(value, (set, frozenset)):
            return "{}:{!r}".format(type(value).__name__, sorted(value, key=repr))
        if isinstance(value, (datetime.date, datetime.time)):
            # isoformat, not repr: pydantic's UTC is a class of its own, with a repr of its own.
            return "{}:{}".format(type(value).__name__, value.isoformat())
        return "{}:{!r}".format(type(value).__name__, value)

    return "; ".join("{}={}".format(name, one(value)) for name, value in received.items())


@env.template()
async def scalars(count: int, ratio: float, flag: bool, word: str, data: bytes = b""):
    answer = yield describe(count=count, ratio=ratio, flag=flag, word=word, data=data)
    yield 1.0


@env.template()
async def containers(items: List[int], table: Dict[str, float], pair: Tuple[int, str], tags: frozenset = frozenset()):
    answer = yield describe(items=items, table=table, pair=pair, tags=tags)
    yield 1.0


@env.template()
async def choices(level: Literal[1, 2, 3], on: Literal[True], color: Color, maybe: Optional[int] = None,
                  either: Union[int, str] = 0):
    answer = yield describe(level=level, on=on, color=color, maybe=maybe, either=either)
    yield 1.0


@env.template()
async def records(point: Point, span: Span, where: pathlib.Path, amount: decimal.Decimal, ident: uuid.UUID):
    answer = yield describe(point=point, span=span, where=where, amount=amount, ident=ident)
    yield 1.0


@env.template()
async def moments(day: datetime.date, at: datetime.datetime, clock: datetime.time,
                  due: Optional[datetime.date] = None):
    answer = yield describe(day=day, at=at, clock=clock, due=due)
    yield 1.0


@env.template()
async def keywords(a: int, *, b: int = 2, c: str):
    answer = yield describe(a=a, b=b, c=c)
    yield 0.5


@env.template()
async def positional(a: int, /):
    answer = yield describe(a=a)
    yield 0.5


@env.template()
async def open_ended(first: int = 1, **rest):
    answer = yield describe(first=first, **rest)
    yield 0.5


@env.template()
async def untyped(x, y=3):
    answer = yield describe(x=x, y=y)
    yield 0.5


@env.template()
async def defaults(n: int = "7", names: List[str] = ("a",)):
    answer = yield describe(n=n, names=names)
    yield 0.5
