"""The console front end as the README runs it: no server configured, so an embedded mcsim."""

from __future__ import annotations

import io
from pathlib import Path

from bot.minecraft.installer import bundled_datapack, pack_version_of
from bot.slash.console import main
from tests.cogs.harness import make_settings


def test_console_on_the_embedded_mcsim(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path, admin_role_ids=[], moderator_role_ids=[], admin_user_ids=[], audit_channel_id=None
    )
    stdin = io.StringIO(
        "/schedule run:say hello there time:1 unit:hour id:greet\n"
        "/list\n"
        "/clear\n"
        "yes\n"
        "/status\n"
        "quit\n"
    )
    out = io.StringIO()
    assert main(settings, stdin=stdin, stdout=out) == 0
    text = out.getvalue()
    assert "Scheduled `greet` on embedded." in text
    assert "== queue on embedded: 1 task(s) ==" in text
    assert "Remove every scheduled task on embedded?" in text
    assert "Removed 1 task(s) from embedded." in text
    assert (
        "== Status of embedded ==" in text
        and f"pack version: {pack_version_of(bundled_datapack())}" in text
    )
    assert (tmp_path / "data" / "world" / "datapacks" / "doom.schedule").is_dir()
