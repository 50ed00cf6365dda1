"""Grades that carry more than a score, episode bindings beside the prompt, teardown trouble, and typed answers.

A typed answer's parse shows in a subscore's name, so the suite compares it.
"""
import dataclasses
from typing import Dict, List, Optional

from hud import Environment
from hud.graders import EvaluationResult, SubScore

env = Environment(name="outcomes")


@env.template()
async def flagged_error():
    answer = yield "Anything."
    yield EvaluationResult(reward=0.3, isError=True, content="the grader could not finish")


@env.template()
async def flagged_error_dict():
    answer = yield "Anything."
    yield {"score": 0.2, "isError": True, "content": "half-checked", "done": False}


@env.template()
async def not_done():
    answer = yield "Anything."
    yield EvaluationResult(reward=0.7, done=False, info={"attempt": 1})


@env.template()
async def null_parts():
    answer = yield "Anything."
    yield {"score": 0.6, "subscores": None, "info": "not a mapping", "content": 5}


@env.template()
async def weights_as_written():
    answer = yield "Anything."
    yield {
        "score": 0.9,
        "subscores": [
            {"name": "a", "value": 1.0, "weight": 0.7},
            {"name": "b", "value": 0.5, "weight": 0.0},
            {"name": "penalty", "value": 1.0, "weight": -0.1, "metadata": {"why": "late"}},
        ],
    }


@env.template()
async def bindings_given():
    answer = yield {"prompt": "Use the slot.", "bindings": {"robot": {"token": "t-1"}}}
    yield 0.5


@env.template()
async def bindings_not_a_mapping():
    answer = yield {"prompt": "Use the slot.", "bindings": "slot-1"}
    yield 0.5


@env.template()
async def bindings_entry_not_a_mapping():
    answer = yield {"prompt": "Use the slot.", "bindings": {"robot": "t-1"}}
    yield 0.5


@env.template()
async def teardown_raises():
    try:
        answer = yield "Anything."
        yield 0.8
    finally:
        raise RuntimeError("cleanup failed")


@env.template()
async def teardown_yields():
    try:
        answer = yield "Anything."
        yield 0.4
    finally:
        yield "one more"


@dataclasses.dataclass
class Guess:
    value: int
    sure: bool = False


def parsed(answer):
    return "{}:{!r}|raw:{!r}".format(type(answer.content).__name__, answer.content, answer.raw)


@env.template(returns=int)
async def typed_int():
    answer = yield "A number, as JSON."
    yield await_free(SubScore(name=parsed(answer), value=1.0))


@env.template(returns=List[int])
async def typed_list():
    answer = yield "A list of numbers, as JSON."
    yield await_free(SubScore(name=parsed(answer), value=1.0))


@env.template(returns=Dict[str, Optional[float]])
async def typed_mapping():
    answer = yield "An object of numbers, as JSON."
    yield await_free(SubScore(name=parsed(answer), value=1.0))


@env.template(returns=Guess)
async def typed_record():
    answer = yield 'A guess, as JSON: {"value": 3}.'
    yield await_free(SubScore(name=parsed(answer), value=1.0))


@env.template(returns=str)
async def typed_text():
    answer = yield "Some text, as JSON."
    yield await_free(SubScore(name=parsed(answer), value=1.0))


def await_free(subscore):
    return EvaluationResult(reward=subscore.value, subscores=[subscore])


# ---- values JSON cannot carry: the SDK's server fails to send the frame


@env.template()
async def prompt_with_a_set():
    answer = yield {"prompt": "Pick one.", "options": {"a", "b"}}
    yield 1.0


@env.template()
async def prompt_as_bytes():
    answer = yield b"raw bytes"
    yield 1.0


@env.template()
async def prompt_with_a_tuple():
    answer = yield ("first", "second")
    yield 0.5


@env.template()
async def grade_with_an_object():
    answer = yield "Anything."
    yield {"score": 0.5, "info": {"checked": Guess(value=1)}}


@env.template()
async def result_with_an_object():
    answer = yield "Anything."
    yield EvaluationResult(reward=0.5, info={"checked": Guess(value=1)})


# ---- subscores handed over as plain dicts: the SDK's client reads each one as its SubScore model


@env.template()
async def subscore_extra_key():
    answer = yield "Anything."
    yield {"score": 0.5, "subscores": [{"name": "a", "value": 0.5, "note": "not a field"}]}


@env.template()
async def subscore_text_numbers():
    answer = yield "Anything."
    yield {"score": 0.5, "subscores": [{"name": "a", "value": "0.5", "weight": "1"}]}


@env.template()
async def subscore_boolean_value():
    answer = yield "Anything."
    yield {"score": 1.0, "subscores": [{"name": "a", "value": True}]}


@env.template()
async def subscore_bad_child():
    answer = yield "Anything."
    yield {"score": 0.5, "subscores": [{"name": "a", "value": 0.5, "children": [{"name": "c", "value": 2}]}]}


@env.template()
async def subscore_null_weight():
    answer = yield "Anything."
    yield {"score": 0.5, "subscores": [{"name": "a", "value": 0.5, "weight": None}]}


@env.template()
async def subscore_nameless():
    answer = yield "Anything."
    yield {"score": 0.5, "subscores": [{"value": 0.5}]}
