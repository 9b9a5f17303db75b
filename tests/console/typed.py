"""The console in a test: lines typed by a harness user run on the harness's core."""

from __future__ import annotations

import io
import itertools
from collections.abc import Callable
from typing import Any

from bot.operations import Caller, Operations, Rank
from bot.testkit.harness import ADMIN, MOD, User
from console.session import run_console

RANKS = {ADMIN.id: Rank.ADMIN, MOD.id: Rank.MODERATOR}


def typed_by(user: User, name: str = "") -> Callable[[], Caller]:
    """The console's caller for `user`: their rank as the harness gives it, a request number
    for each line."""
    refs = itertools.count(1)
    rank = RANKS.get(user.id, Rank.NONE)
    return lambda: Caller(user.id, name or f"user{user.id}", rank, "console", next(refs))


async def typed(ops: Operations, lines: str, user: User = ADMIN, **kwargs: Any) -> str:
    """What the console prints for `lines` (a pipe: plain text)."""
    out = io.StringIO()
    await run_console(ops, io.StringIO(lines), out, typed_by(user), **kwargs)
    return out.getvalue()
