"""Grading shapes every path must agree on: written for the HUD SDK v6 API, served by either SDK."""
from typing import Literal

from hud import Environment
from hud.graders import BashGrader, EvaluationResult, SubScore, combine, combine_all, combine_any, exact_match

env = Environment(name="graders")
judge = Environment(name="graders-judge")


@env.template()
async def weighted(expected: str, strict: bool = False):
    answer = yield "Say the word."
    yield await combine(
        SubScore(name="exact", value=exact_match(answer, expected), weight=0.6),
        SubScore(name="exact", value=1.0 if expected in str(answer) else 0.0, weight=0.2),
        SubScore(name="exact-1", value=1.0 if strict else 0.5, weight=0.2),
        SubScore(name="rude", value=1.0 if "!" in str(answer) else 0.0, weight=-0.5),
    )


@env.template()
async def shell(code: int):
    answer = yield "Pick an exit code."
    tests = await BashGrader.grade(0.5, command="exit {}".format(int(answer) if str(answer).isdigit() else 9))
    named = await BashGrader.grade(0.5, name="fixed", command="exit {}".format(code))
    yield await combine(tests, named)


@env.template()
async def boolean(level: Literal[1, 2, 3], scale: float):
    answer = yield "Name a level."
    hits = [SubScore(name="level", value=1.0 if str(level) == answer else 0.0), SubScore(name="level", value=scale)]
    yield await combine(combine_any(0.5, subscores=hits), combine_all(0.5, hits, name="every"))


@env.template()
async def bare_result(points: int):
    answer = yield "Any answer."
    yield EvaluationResult(reward=min(1.0, points / 10), content="points {}".format(points))


@env.template()
async def plain_dict():
    answer = yield "Any answer."
    yield {"score": 0.25, "answer": answer, "info": {"len": len(str(answer))}}


@env.template()
async def broken_actor():
    answer = yield "The actor's grader fails; the verifier still grades."
    raise RuntimeError("actor grader exploded on {}".format(answer))
    yield 0.0  # noqa: unreachable; keeps this an async generator


@judge.template()
async def check(expected: str):
    actor_result = yield ""
    yield 1.0 if actor_result.get("answer") == expected else 0.0
