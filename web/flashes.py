"""A write's outcome, shown once on the next page: kept in the user's session on the server
(the database's, so the next page may come from another process).

Quart's own `flash` keeps the messages in the session cookie, and a browser drops a cookie of
over 4,096 bytes whole (RFC 6265 section 6.1 asks no more of it; Chromium keeps no more): a
group's outcome across many servers, or a long failure, would vanish. A request without a
server session falls back to Quart's."""

from __future__ import annotations

from typing import Any

import quart

from bot.store.web_sessions import FLASHES_KEPT
from web.auth import cookie_session
from web.context import state

__all__ = ["KEPT", "flash", "get_flashed_messages"]

KEPT = FLASHES_KEPT  # messages a session holds for pages not yet loaded: the newest ones


async def flash(message: str, category: str = "message") -> None:
    found = await cookie_session()
    if found is None or not await state().sessions.store.flash(found.sid, category, message):
        await quart.flash(message, category)
        return
    found.flashes.append((category, message))


async def get_flashed_messages(with_categories: bool = False) -> list[Any]:
    """What the templates call (as Quart's of that name, awaited by the template): the
    messages, then forgotten."""
    taken: list[tuple[str, str]] = []
    for item in quart.get_flashed_messages(with_categories=True):
        category, message = item if isinstance(item, tuple) else ("message", item)
        taken.append((category, message))
    found = await cookie_session()
    if found is not None and found.flashes:  # none when read and none since: no write
        taken += await state().sessions.store.take_flashes(found.sid)
        found.flashes = []
    if with_categories:
        return taken
    return [message for _category, message in taken]
