"""Postponed annotations (`from __future__ import annotations`): every annotation is text, resolved when the template registers."""
from __future__ import annotations

from typing import Dict, List, Optional

from hud import Environment

env = Environment(name="postponed")


@env.template()
async def typed(count: int, ratios: List[float], table: Optional[Dict[str, int]] = None) -> None:
    answer = yield "count={!r} ratios={!r} table={!r}".format(count, ratios, table)
    yield 1.0 if answer == str(count) else 0.0
