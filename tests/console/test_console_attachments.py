"""An outcome's file, the console writes to the data dir and names: the plan of `/plan export`;
a command too long for a Discord reply shows whole in the terminal. The console as the README
runs it (no server configured: the embedded mcsim), in-process; the files read back as
written."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from bot.testkit.harness import make_settings
from console.files import keep
from console.front import main

LONG = "say " + "long " * 240  # 1,204 characters: more than /show puts in its reply


def saved(text: str, name: str) -> list[Path]:
    """The paths the console said it saved an attachment called `name` as."""
    found = re.findall(rf"\(attached: {re.escape(name)}, saved as (.+?)\)\n", text)
    return [Path(p) for p in found]


def test_plan_export_and_show_of_a_long_command_are_written_and_named(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path, admin_role_ids=[], moderator_role_ids=[], admin_user_ids=[], audit_channel_id=None
    )
    stdin = io.StringIO(
        f"/schedule run:{LONG} time:1 unit:hour id:long\n"
        "/plan export\n"
        "/show id:long\n"
        "/plan export\n"
        "quit\n"
    )
    out = io.StringIO()
    assert main(settings, stdin=stdin, stdout=out) == 0
    text = out.getvalue()
    assert "went wrong" not in text, text
    plans = saved(text, "plan-embedded.yaml")
    assert len(plans) == 2 and plans[0] != plans[1]  # the second export keeps the first
    folder = tmp_path / "data" / "console"
    for plan in plans:
        assert plan.parent == folder and plan.name.startswith("plan-embedded-")
        assert plan.suffix == ".yaml"
        tasks = yaml.safe_load(plan.read_text(encoding="utf-8"))["tasks"]
        assert [(t["id"], t["run"]) for t in tasks] == [("long", LONG.strip())]
    # a terminal holds the whole command: no file for it (Discord's reply attaches one)
    assert LONG.strip() in text and saved(text, "long.txt") == []


def test_a_file_is_never_written_over_and_its_name_stays_in_the_folder(tmp_path: Path) -> None:
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    first = keep(tmp_path / "c", "plan-main.yaml", b"one", now)
    second = keep(tmp_path / "c", "plan-main.yaml", b"two", now)
    assert first.name == "plan-main-20261201-120000.yaml"
    assert second.name == "plan-main-20261201-120000-2.yaml"
    assert (first.read_bytes(), second.read_bytes()) == (b"one", b"two")
    sneaky = keep(tmp_path / "c", "../../etc/.passwd", b"x", now)
    assert sneaky.parent == tmp_path / "c" and sneaky.name == "passwd-20261201-120000"


def test_a_folder_that_cannot_be_written_is_said_and_the_console_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = make_settings(
        tmp_path, admin_role_ids=[], moderator_role_ids=[], admin_user_ids=[], audit_channel_id=None
    )
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "console").write_text("a file where the folder would be")
    stdin = io.StringIO("/plan export\n/time\nquit\n")
    out = io.StringIO()
    assert main(settings, stdin=stdin, stdout=out) == 0
    text = out.getvalue()
    folder = tmp_path / "data" / "console"
    assert f"(attached: plan-embedded.yaml; it could not be written to {folder}: " in text
    assert "went wrong" not in text
    assert "Time on embedded" in text  # the next command ran
