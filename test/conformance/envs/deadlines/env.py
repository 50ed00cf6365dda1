"""A template that outlives the rollout's time limit while it grades."""
import asyncio

from hud import Environment

env = Environment(name="deadlines")


@env.template()
async def slow_grade(seconds: float = 600):
    answer = yield "Answer; grading takes longer than the rollout may."
    await asyncio.sleep(seconds)
    yield 1.0
