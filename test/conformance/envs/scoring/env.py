"""The text graders on awkward inputs, graders of one's own, results the SDK refuses, and verifiers that fail.

Each grader's value is one subscore, so the suite compares every value by name.
"""
from hud import Environment
from hud.graders import (
    EvaluationResult,
    Grader,
    SubScore,
    combine,
    contains,
    contains_all,
    contains_any,
    exact_match,
    f1_score,
    normalize,
    numeric_match,
)

env = Environment(name="scoring")
referee = Environment(name="scoring-referee")


@env.template()
async def text(expected: str = "The Answer: 42!"):
    answer = yield "Answer in words or digits."
    yield await combine(
        SubScore(name="exact", value=exact_match(answer, expected)),
        SubScore(name="exact-raw", value=exact_match(answer, expected, normalize_text=False)),
        SubScore(name="contains", value=contains(answer, "42")),
        SubScore(name="contains-case", value=contains(answer, "ANSWER", case_sensitive=True)),
        SubScore(name="any", value=contains_any(answer, ["forty", "42"])),
        SubScore(name="all", value=contains_all(answer, ["answer", "42"])),
        SubScore(name="none-of-nothing", value=contains_any(answer, [])),
        SubScore(name="all-of-nothing", value=contains_all(answer, [])),
        SubScore(name="number", value=numeric_match(answer, 42.0)),
        SubScore(name="number-near", value=numeric_match(answer, 41.5, tolerance=0.5)),
        SubScore(name="f1", value=f1_score(answer, expected)),
        SubScore(name="normal-is-" + normalize(answer).replace(" ", "_"), value=1.0, weight=0.5),
    )


@env.template()
async def number_as_text():
    answer = yield "A number."
    yield numeric_match(answer, "42")


@env.template()
async def needle_not_text():
    answer = yield "Anything."
    yield contains(answer, 42)


@env.template()
async def expected_not_text():
    answer = yield "Anything."
    yield exact_match(answer, 42, normalize_text=False)


@env.template()
async def combine_a_list():
    answer = yield "Anything."
    yield await combine([SubScore(name="a", value=1.0), SubScore(name="b", value=0.0)])


@env.template()
async def content_not_text():
    answer = yield "Anything."
    yield EvaluationResult(reward=0.5, content=7)


class Length(Grader):
    name = "length"

    @classmethod
    async def compute_score(cls, text: str, limit: int):
        return (1.0 if len(text) <= limit else 0.0), {"length": len(text)}


class Echo(Grader):
    name = "echo"

    @classmethod
    async def compute_score(cls, value):
        return value


@env.template()
async def own_graders(limit: int = 5):
    answer = yield "Something short."
    yield await combine(
        Length.grade(0.5, text=answer, limit=limit),
        Echo.grade(0.25, name="half", value=0.5),
        Echo.grade(0.25, value="1"),
    )


@env.template()
async def grader_out_of_range():
    answer = yield "Anything."
    yield await combine(Echo.grade(1.0, value=1.5))


# ---- verifiers


@env.template()
async def hand_over(secret: str = "s3cret"):
    answer = yield "Hand something over."
    yield {"score": 0.1, "answer": answer, "secret": secret}


@env.template()
async def same_env_check(expected: str, bonus: float = 0.0):
    actor_result = yield "unused"
    ok = actor_result.get("answer") == expected and actor_result.get("secret") == "s3cret"
    yield min(1.0, (1.0 if ok else 0.0) + bonus)


@referee.template()
async def judge(expected: str):
    actor_result = yield None
    yield EvaluationResult(
        reward=1.0 if actor_result.get("answer") == expected else 0.0,
        subscores=[SubScore(name="match", value=1.0 if actor_result.get("answer") == expected else 0.0)],
    )


@referee.template()
async def judge_raises():
    actor_result = yield None
    raise RuntimeError("the referee fell over")
    yield 1.0  # noqa: unreachable


@referee.template()
async def judge_yields_once():
    actor_result = yield None
