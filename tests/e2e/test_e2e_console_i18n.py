# ruff: noqa: RUF001  (Chinese text uses full-width punctuation on purpose)
"""`python -m bot console` as a real process with DOOM_LOCALE=zh_CN answers /help and a
refused /schedule in Chinese, and a plain session shows no library warning and no log line (they
go to <data dir>/bot.log); `-v` shows the log lines again; discord.py is never imported. No
server configured: embedded mcsim."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.operations.builtin import BUILTIN
from bot.operations.registry import options as registry_options
from tests.e2e.test_e2e_serve import _discord_modules

ROOT = Path(__file__).resolve().parents[2]
# a log line's time names its zone: "2026-12-04 19:00:00,123 UTC INFO ..."
LEVEL = "(DEBUG|INFO|WARNING|ERROR|CRITICAL)"
LOG_LINE = re.compile(rf"^\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ \S+ {LEVEL} ")
LINES = "/help\n/schedule run:op Steve time:1 unit:tick id:bad\nquit\n"


def console(
    tmp_path: Path, *args: str, lines: str = LINES, **env_extra: str
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOOM_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["DOOM_DATA_DIR"] = str(tmp_path / "botdata")
    env["LANG"] = "C.UTF-8"
    env.pop("LANGUAGE", None)
    env.pop("LC_ALL", None)
    env.pop("LC_MESSAGES", None)
    env.update(env_extra)
    return subprocess.run(
        [sys.executable, "-m", "bot", "console", *args],
        input=lines,
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=180,
    )


@pytest.mark.slow
def test_the_console_speaks_chinese_and_keeps_quiet(tmp_path: Path) -> None:
    done = console(tmp_path, DOOM_LOCALE="zh_CN")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # the dashboard's address and its one-time link first (the console serves it by default),
    # in Chinese, then the greeting
    lines = out.splitlines()
    assert lines[0].startswith("网页面板：http://127.0.0.1:") and "/login?c=" in lines[0]
    assert lines[1].startswith("只有这台计算机能打开它（127.0.0.1）")
    assert lines[2].startswith("doom.schedule 控制台：输入 /help，或输入 quit 退出。")
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
    assert "INFO web.server: dashboard at http://127.0.0.1:" in logged  # the log lines went here
    assert "voice will NOT be supported" not in logged


MISTAKES = (
    "/help\n"
    "/活动 nope\n"
    "/schedule run:say hi time:abc\n"
    "/schedule run:say hi tme:5 time:5 unit:tick\n"  # else it would run `say hi tme:5`
    "/schedule bogus:1 run:say hi\n"
    "/schedule run:sya hi time:5 unit:tick id:typo\n"
    "/schedule run:say hi time:99999999999 unit:tick\n"
    "quit\n"
)


@pytest.mark.slow
def test_the_console_names_and_mistakes_in_chinese(tmp_path: Path) -> None:
    done = console(tmp_path, lines=MISTAKES, DOOM_LOCALE="zh_CN")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    # a group's subcommands: each word translated, as Discord shows them to a zh-CN reader
    assert "/活动 取消 (/event cancel): 取消 Discord 中的活动及其任务。" in lines
    assert (
        "/计划 导出 (/plan export): 把服务器已计划的任务、游戏时间任务和活动导出为 YAML。" in lines
    )
    assert "! /活动 需要以下之一：创建, 修改, 取消, 列表, 查看" in lines
    assert "! time 必须是数字，而不是「abc」" in lines
    assert "! 未知选项 tme：你是想写 time 吗？" in lines
    # every option of /schedule, as the registry declares them (the required one first)
    found = next(s for s in BUILTIN if s.name == "schedule")
    options = ", ".join(o.name for o in registry_options(found))
    assert f"! 未知选项 bogus（可用选项：{options}）" in lines
    # the command check's words, in Chinese too, with the nearest command
    assert "该命令无法解析：「未知命令 sya：你是想写 say 吗？」" in lines
    assert "time 必须是 0 到 2,147,483,647 之间的整数，而不是 99999999999。" in lines
    assert not any("已在 main 上计划" in line for line in lines), lines  # nothing was scheduled


@pytest.mark.slow
def test_verbose_shows_the_log_lines_and_the_system_locale_applies(tmp_path: Path) -> None:
    done = console(tmp_path, "-v", LANG="zh_CN.UTF-8", TZ="Europe/Berlin")
    assert done.returncode == 0, done.stderr
    assert "已拒绝：op 在此服务器的禁用列表中。" in done.stdout  # LANG, as DOOM_LOCALE is unset
    logs = [line for line in done.stderr.splitlines() if LOG_LINE.match(line)]
    assert any(" DEBUG " in line for line in logs)
    assert all(line.split()[2] in ("CET", "CEST") for line in logs), logs[:3]  # the zone named
    assert any("dashboard at http://127.0.0.1:" in line for line in logs)
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


@pytest.mark.slow
def test_the_console_imports_no_discord(tmp_path: Path) -> None:
    """The console is the core and a terminal: `python -X importtime -m bot console` schedules,
    lists and cancels on the embedded world and never imports a module of discord.py."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOOM_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["DOOM_DATA_DIR"] = str(tmp_path / "botdata")
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bot", "console"],
        input="/schedule run:say hi time:1 unit:hour id:greet\n/list\n/cancel id:greet\nquit\n",
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Scheduled greet on embedded." in done.stdout, done.stdout
    assert "queue on embedded: 1 task(s)" in done.stdout and "Cancelled greet." in done.stdout
    modules = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    assert len(modules) > 300, done.stderr[-2000:]  # the log was read
    assert _discord_modules(done.stderr) == []
