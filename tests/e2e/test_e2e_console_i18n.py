# ruff: noqa: RUF001  (Chinese text uses full-width punctuation on purpose)
"""`python -m bot console` as a real process with DOOM_LOCALE=zh_CN answers /help and a
refused /schedule in Chinese, and a plain session shows no library warning and no log line (they
go to <data dir>/bot.log); `-v` shows the log lines again. No server configured: embedded mcsim."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# a log line's time names its zone: "2026-12-04 19:00:00,123 UTC INFO ..."
LEVEL = "(DEBUG|INFO|WARNING|ERROR|CRITICAL)"
LOG_LINE = re.compile(rf"^\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ \S+ {LEVEL} ")
LINES = "/help\n/schedule run:op Steve time:1 id:bad\nquit\n"


def console(tmp_path: Path, *args: str, **env_extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOOM_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["DOOM_DATA_DIR"] = str(tmp_path / "botdata")
    env["LANG"] = "C.UTF-8"
    env.pop("LANGUAGE", None)
    env.pop("LC_ALL", None)
    env.pop("LC_MESSAGES", None)
    env.update(env_extra)
    return subprocess.run(
        [sys.executable, "-m", "bot", "console", *args], input=LINES, env=env, cwd=tmp_path,
        capture_output=True, text=True, encoding="utf-8", timeout=180,
    )  # fmt: skip


@pytest.mark.slow
def test_the_console_speaks_chinese_and_keeps_quiet(tmp_path: Path) -> None:
    done = console(tmp_path, DOOM_LOCALE="zh_CN")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("doom.schedule 控制台：输入 /help，或输入 quit 退出。")
    assert "\ndoom.schedule 命令\n" in out
    assert "/定时 (/schedule): 在一段游戏时间后运行一条命令。" in out
    assert "已拒绝：op 在此服务器的禁用列表中。" in out
    # the one line on stderr is the bot's own notice, in Chinese; nothing from a library or a log
    assert done.stderr.splitlines() == [
        f"未配置 Minecraft 服务器：使用内置的 mcsim 世界 {tmp_path / 'botdata' / 'world'}"
        f"（doom.schedule {_pack_version()}）。"
    ]
    for line in (out + done.stderr).splitlines():
        assert not LOG_LINE.match(line), line
    for noise in ("PyNaCl", "davey", "voice", "Warning", "WARNING", "INFO"):
        assert noise not in out + done.stderr
    logged = (tmp_path / "botdata" / "bot.log").read_text(encoding="utf-8")
    assert "INFO bot.app: loaded extension cogs.schedule" in logged  # the log lines went here
    assert "voice will NOT be supported" not in logged


@pytest.mark.slow
def test_verbose_shows_the_log_lines_and_the_system_locale_applies(tmp_path: Path) -> None:
    done = console(tmp_path, "-v", LANG="zh_CN.UTF-8", TZ="Europe/Berlin")
    assert done.returncode == 0, done.stderr
    assert "已拒绝：op 在此服务器的禁用列表中。" in done.stdout  # LANG, as DOOM_LOCALE is unset
    logs = [line for line in done.stderr.splitlines() if LOG_LINE.match(line)]
    assert any(" DEBUG " in line for line in logs)
    assert all(line.split()[2] in ("CET", "CEST") for line in logs), logs[:3]  # the zone named
    assert any("loaded extension cogs.schedule" in line for line in logs)
    assert "voice will NOT be supported" not in done.stderr


@pytest.mark.slow
def test_english_without_doom_locale_or_a_chinese_system(tmp_path: Path) -> None:
    done = console(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "\ndoom.schedule commands\n" in done.stdout
    assert "Refused: op is on this server's deny-list." in done.stdout


def _pack_version() -> str:
    from bot.minecraft.installer import bundled_datapack, pack_version_of

    return pack_version_of(bundled_datapack())
