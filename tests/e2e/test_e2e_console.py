"""The console front end as the README runs it: no server configured, so an embedded mcsim."""

from __future__ import annotations

import io
import re
from pathlib import Path

from bot.minecraft.installer import bundled_datapack, pack_version_of
from bot.testkit.harness import make_settings
from console.front import main


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
    assert "Scheduled greet on embedded." in text
    assert "\nqueue on embedded: 1 task(s)\n" in text
    assert "Remove every scheduled task on embedded?" in text
    assert "Removed 1 task(s) from embedded." in text
    version = re.escape(pack_version_of(bundled_datapack()))
    assert "\nStatus of embedded\n" in text
    assert re.search(rf"\n  pack version: +{version}\n", text)  # fields aligned in a column
    assert (tmp_path / "data" / "world" / "datapacks" / "doom.schedule").is_dir()
