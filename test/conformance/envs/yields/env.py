"""What a template may yield, first (the prompt) and second (the result), and how it may end early.

Each template probes one corner of the two-yield protocol; the HUD SDK v6
decides what status and reward each corner earns.
"""
from hud import Environment
from hud.graders import EvaluationResult

env = Environment(name="yields")


# ---- first yield: the prompt


@env.template()
async def prompt_none():
    answer = yield None
    yield 1.0 if answer else 0.5


@env.template()
async def prompt_empty():
    answer = yield ""
    yield 0.5


@env.template()
async def prompt_frame():
    answer = yield {"prompt": "Spell it.", "hint": "no hint"}
    yield 0.25


@env.template()
async def prompt_mapping():
    answer = yield {"question": "What is it?"}
    yield 0.75


@env.template()
async def prompt_turns():
    answer = yield [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Go."}]
    yield 1


@env.template()
async def prompt_strings():
    answer = yield ["first line", "second line"]
    yield 0.5


@env.template()
async def prompt_blocks():
    answer = yield [{"type": "text", "text": "A content block, not a turn."}]
    yield 1.0


@env.template()
async def prompt_number():
    answer = yield 42
    yield 1.0


# ---- second yield: the result


@env.template()
async def result_true():
    answer = yield "Anything."
    yield answer == "yes"


@env.template()
async def result_int():
    answer = yield "Anything."
    yield 3


@env.template()
async def result_negative():
    answer = yield "Anything."
    yield -0.5


@env.template()
async def result_dict_extras():
    answer = yield "Anything."
    yield {"score": 0.4, "note": answer, "subscores": [{"name": "part", "value": 0.4}]}


@env.template()
async def result_dict_bool():
    answer = yield "Anything."
    yield {"score": True}


@env.template()
async def result_dict_text_score():
    answer = yield "Anything."
    yield {"score": "0.5"}


@env.template()
async def result_dict_bad_subscore():
    answer = yield "Anything."
    yield {"score": 0.5, "subscores": [{"name": "over", "value": 1.5}]}


@env.template()
async def result_text():
    answer = yield "Anything."
    yield "1.0"


@env.template()
async def result_none():
    answer = yield "Anything."
    yield None


@env.template()
async def result_big_reward():
    answer = yield "Anything."
    yield EvaluationResult(reward=2.5, content="above one is allowed")


# ---- how the generator ends


@env.template()
async def only_prompt():
    answer = yield "One yield only."


@env.template()
async def three_yields():
    answer = yield "Three yields."
    yield 0.3
    yield 0.9


@env.template()
async def returns_early(cutoff: int = 1):
    answer = yield "Return before grading."
    if len(str(answer)) > cutoff:
        return
    yield 0.6


@env.template()
async def raises_before():
    raise ValueError("broken before the prompt")
    yield "unreachable"  # noqa: keeps this an async generator


@env.template()
async def raises_after():
    answer = yield "Breaks while grading."
    raise KeyError(answer)
    yield 1.0  # noqa: unreachable
