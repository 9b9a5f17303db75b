"""The dashboard's state that every process serving it must share: the signing key, the
sessions of logged-in browsers, and the /dashboard links already used.

Behind a load balancer a browser's requests reach any process: a login made through one is
good in all, a logout through one ends it in all, and a link is good once whichever process
opens it. As with API tokens, only a secret's SHA-256 is stored (a session's id, a link's
nonce): a copy of the database opens nothing. Times are the caller's clock (epoch seconds),
so tests drive expiry.
"""

from __future__ import annotations

__all__ = ["SIGNING", "SessionRow", "WebSessionStore"]

import json
import secrets
from dataclasses import dataclass, field

from sqlalchemy import delete, select, update

from bot.store.calendar_feeds import digest
from bot.store.db import Database
from bot.store.tables import web_keys as keys
from bot.store.tables import web_links_spent as spent
from bot.store.tables import web_sessions as sessions

SIGNING = "signing"  # the name of the key that signs cookies, links and tokens
FLASHES_KEPT = 20  # messages a session holds for pages not yet loaded: the newest ones


@dataclass(slots=True)
class SessionRow:
    """A session as stored, found by its id (which the store never keeps)."""

    sid: str
    user_id: int
    guild_id: int
    name: str
    expires: float
    csrf: str
    rank: int | None = None  # fixed (a login made without Discord)
    seen_rank: int | None = None  # what Discord's roles gave when last asked
    seen_at: float = 0.0
    flashes: list[tuple[str, str]] = field(default_factory=list)


def _flashes(text: object) -> list[tuple[str, str]]:
    try:
        items = json.loads(str(text))
    except ValueError:
        return []
    return [(str(c), str(m)) for c, m in items] if isinstance(items, list) else []


class WebSessionStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- the signing key ----------------------------------------------------------------------

    async def signing_key(self, now: float) -> bytes:
        """The key every process signs with: made by the first to ask. Two processes starting
        at once both insert; the database keeps one row, and both read it back."""
        made = secrets.token_hex(32)
        async with self.db.begin() as conn:
            await conn.execute(
                self.db.insert(keys)
                .values(name=SIGNING, value=made, created=now)
                .on_conflict_do_nothing(index_elements=[keys.c.name])
            )
        query = select(keys.c.value).where(keys.c.name == SIGNING)
        async with self.db.connect() as conn:
            value: str = (await conn.execute(query)).scalar_one()
        return bytes.fromhex(str(value))

    # -- sessions -----------------------------------------------------------------------------

    async def open(self, row: SessionRow, now: float) -> None:
        """Keep a new session; sessions that expired by `now` go."""
        async with self.db.begin() as conn:
            await conn.execute(delete(sessions).where(sessions.c.expires <= now))
            await conn.execute(
                sessions.insert().values(
                    sid_sha256=digest(row.sid),
                    user_id=row.user_id,
                    guild_id=row.guild_id,
                    name=row.name,
                    rank=row.rank,
                    seen_rank=row.seen_rank,
                    seen_at=row.seen_at,
                    csrf=row.csrf,
                    flashes=json.dumps(row.flashes),
                    expires=row.expires,
                )
            )

    async def get(self, sid: str, now: float) -> SessionRow | None:
        """The session of this id while it is open; an expired one is removed."""
        s = sessions.c
        query = select(
            s.user_id, s.guild_id, s.name, s.expires, s.csrf, s.rank, s.seen_rank, s.seen_at,
            s.flashes,
        ).where(s.sid_sha256 == digest(sid))  # fmt: skip
        async with self.db.connect() as conn:
            found = (await conn.execute(query)).first()
        if found is None:
            return None
        if float(found.expires) <= now:
            await self.end(sid)
            return None
        return SessionRow(
            sid,
            int(found.user_id),
            int(found.guild_id),
            str(found.name),
            float(found.expires),
            str(found.csrf),
            None if found.rank is None else int(found.rank),
            None if found.seen_rank is None else int(found.seen_rank),
            float(found.seen_at or 0.0),
            _flashes(found.flashes),
        )

    async def end(self, sid: str) -> None:
        async with self.db.begin() as conn:
            await conn.execute(delete(sessions).where(sessions.c.sid_sha256 == digest(sid)))

    async def seen(self, sid: str, name: str, rank: int, at: float) -> None:
        """Remember what Discord said of the user (their name and the rank their roles give),
        so the next read in any process may rely on it for a few seconds."""
        async with self.db.begin() as conn:
            await conn.execute(
                update(sessions)
                .where(sessions.c.sid_sha256 == digest(sid))
                .values(name=name, seen_rank=rank, seen_at=at)
            )

    async def flash(self, sid: str, category: str, message: str) -> bool:
        """Keep a message for the session's next page; False when the session is gone."""
        where = sessions.c.sid_sha256 == digest(sid)
        async with self.db.begin() as conn:
            # FOR UPDATE: two requests flashing at once (in two processes) keep both
            text = (
                await conn.execute(select(sessions.c.flashes).where(where).with_for_update())
            ).scalar_one_or_none()
            if text is None:
                return False
            kept = [*_flashes(text), (category, message)][-FLASHES_KEPT:]
            await conn.execute(update(sessions).where(where).values(flashes=json.dumps(kept)))
        return True

    async def take_flashes(self, sid: str) -> list[tuple[str, str]]:
        """The messages kept for the session, forgotten as they are taken."""
        where = sessions.c.sid_sha256 == digest(sid)
        async with self.db.begin() as conn:
            text = (
                await conn.execute(select(sessions.c.flashes).where(where).with_for_update())
            ).scalar_one_or_none()
            taken: list[tuple[str, str]] = _flashes(text) if text is not None else []
            if taken:
                await conn.execute(update(sessions).where(where).values(flashes="[]"))
        return taken

    # -- login links --------------------------------------------------------------------------

    async def link_spent(self, nonce: str) -> bool:
        async with self.db.connect() as conn:
            query = select(spent.c.nonce_sha256).where(spent.c.nonce_sha256 == digest(nonce))
            return (await conn.execute(query)).first() is not None

    async def spend_link(self, nonce: str, now: float, keep_until: float) -> bool:
        """Mark a link's nonce used; False when it was already (by any process). One insert
        decides, so of two presses at once only one logs in."""
        async with self.db.begin() as conn:
            await conn.execute(delete(spent).where(spent.c.expires <= now))
            made = (
                await conn.execute(
                    self.db.insert(spent)
                    .values(nonce_sha256=digest(nonce), expires=keep_until)
                    .on_conflict_do_nothing(index_elements=[spent.c.nonce_sha256])
                    .returning(spent.c.nonce_sha256)
                )
            ).first()
        return made is not None
