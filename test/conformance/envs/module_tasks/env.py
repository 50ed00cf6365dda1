"""Tasks made in the module itself, the way SDK users write them: template calls, lists, Tasksets, verifiers set by assignment."""
from hud import Environment, Task, Taskset

env = Environment(name="module")
checker = Environment(name="module-checker")


@env.template()
async def spell(word: str, times: int = 1):
    answer = yield "Spell '{}' {} time(s), joined by spaces.".format(word, times)
    yield 1.0 if answer == " ".join([word] * times) else 0.0


@env.template()
async def open_ended(first: int = 1, **rest):
    answer = yield "first={!r} rest={!r}".format(first, sorted(rest.items()))
    yield 0.5


@env.template()
async def hand_in():
    answer = yield "Hand in the word."
    yield {"score": 0.0, "answer": answer}


@env.template()
async def same_env_judge(expected: str):
    handed = yield None
    yield 1.0 if handed.get("answer") == expected else 0.25


@checker.template(id="judge", description="checks the handed-in word in an environment of its own")
async def other_env_judge(expected: str, strict: bool = True):
    handed = yield None
    got = handed.get("answer")
    yield 1.0 if got == expected else (0.0 if strict else 0.5)


by_keyword = spell(word="echo")
by_position = spell("echo", 2)
default_spelled_out = spell(word="echo", times=1)
extra_keywords = open_ended(first=2, colour="red", size=3)
listed = [spell(word="alpha"), spell(word="beta", times="2")]
suite = Taskset("suite", [spell(word="gamma"), open_ended()])
written_out = Task(env="module", id="spell", args={"word": "delta"})
own_slug = Task(env="module", id="spell", args={"word": "delta"}, slug="delta-by-hand")

judged_here = hand_in()
judged_here.verifier = same_env_judge(expected="echo")
judged_elsewhere = hand_in()
judged_elsewhere.verifier = other_env_judge(expected="echo", strict="false")
