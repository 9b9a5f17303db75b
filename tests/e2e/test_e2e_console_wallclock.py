"""The console takes the wall-clock options too and prints the times in local time."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

from bot.i18n.formats import moment
from bot.testkit.harness import make_settings
from console.front import main


def test_console_plans_lists_and_cancels_in_local_time(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path, admin_role_ids=[], moderator_role_ids=[], admin_user_ids=[], audit_channel_id=None
    )
    stdin = io.StringIO(
        "/schedule run:say hello there when:2030-01-05 18:30 timezone:UTC id:plan announce:5m\n"
        "/schedule run:say bad when:2030-02-30 18:30 id:bad\n"
        "/list which:planned\n"
        "/cancel id:plan\n"
        "/list which:planned\n"
        "quit\n"
    )
    out = io.StringIO()
    assert main(settings, stdin=stdin, stdout=out) == 0
    text = out.getvalue()
    # a Discord timestamp prints as the console's local time with its zone named, in its
    # language's format (Babel), the relative part once
    local = moment(datetime(2030, 1, 5, 18, 30, tzinfo=UTC))
    assert f"Planned plan on embedded for {local}." in text
    assert "2030-02-30 is not a date that exists" in text
    assert "\nplanned on embedded: 1 schedule(s)\n" in text
    assert f"plan {local}" in text
    assert "Cancelled the planned schedule plan on embedded." in text
    assert "\nplanned on embedded: 0 schedule(s)\n" in text
