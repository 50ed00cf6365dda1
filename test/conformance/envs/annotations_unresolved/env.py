"""An annotation naming something imported only for type checkers: the SDK fails the import when the template registers."""
from __future__ import annotations

from typing import TYPE_CHECKING

from hud import Environment

if TYPE_CHECKING:
    from decimal import Decimal

env = Environment(name="unresolved")


@env.template()
async def priced(amount: Decimal = 1):
    answer = yield "Price it."
    yield 1.0
