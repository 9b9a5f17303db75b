"""API tokens and one-time login codes made without Discord (bot.operations.access), on the real
SQLite database; the store on both engines: tests/store/test_store_access.py."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot import errors
from bot.config import Settings
from bot.operations import Caller, Operations, Rank, access
from bot.operations.base import StoreAuditor
from bot.services import Services
from bot.store.audit import AuditStore
from bot.store.db import Database, open_in


@pytest.fixture
async def ops(tmp_path: Path) -> Operations:
    settings = Settings(data_dir=tmp_path)
    services = Services(settings, {}, AuditStore(Database(tmp_path / "db.sqlite3")))
    return Operations(services, StoreAuditor(services))


def _caller(rank: Rank) -> Caller:
    return Caller(7, "Mia", rank, "web", 1)


async def test_only_an_admin_makes_tokens_and_bad_names_are_refused_in_words(
    ops: Operations,
) -> None:
    request = access.AccessRequest(name="ci", rank="admin")
    with pytest.raises(errors.NotAllowed, match="admin role"):
        await access.new_token(ops, _caller(Rank.MODERATOR), request)
    with pytest.raises(errors.NotAllowed):
        await access.login(ops, _caller(Rank.MODERATOR), request)
    for bad in ("", "two words", "-dash-first", "x" * 41, "ünï"):
        with pytest.raises(errors.ValidationError, match="is not one") as caught:
            await access.new_token(ops, _caller(Rank.ADMIN), access.AccessRequest(name=bad))
        assert caught.value.field == "name"
    assert await access.tokens(ops, _caller(Rank.ADMIN)) == []  # nothing was made
    made = await access.new_token(ops, _caller(Rank.ADMIN), request)
    assert made.secret.startswith("doom_") and made.rank == "admin"
    entries = await ops.services.audit.mutations()
    assert [e.action for e in entries] == ["token new"]
    assert made.secret not in repr(entries)  # the secret is in no audit entry
    with pytest.raises(errors.NotFound, match="no token called 'nope'"):
        await access.revoke(ops, _caller(Rank.ADMIN), "nope")


async def test_a_login_link_to_an_unknown_address_is_not_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import serve as serve_cli

    settings = Settings(data_dir=tmp_path)  # no DOOM_WEB_URL, no port, no serve ran here
    out = io.StringIO()
    assert await serve_cli.login(settings, "Ada", "admin", out) == 2
    assert out.getvalue() == "" and "address is not known" in capsys.readouterr().err
    store = AuditStore(open_in(tmp_path))
    try:
        assert await store.mutations() == []  # no link was made, so none was audited
    finally:
        await store.close()
    # once serve said where it listens, the link is made there
    store = AuditStore(open_in(tmp_path))
    try:
        await store.set_cursor(serve_cli.DASHBOARD_URL, "http://127.0.0.1:8123")
    finally:
        await store.close()
    assert await serve_cli.login(settings, "Ada", "admin", out) == 0
    assert out.getvalue().startswith("http://127.0.0.1:8123/login?c=")
