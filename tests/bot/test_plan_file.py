"""`python -m bot export` and `python -m bot import`: the plan file, each command a real process
against mcsim over TCP RCON (servers that tick only when stepped, so a task's remaining delay
holds still between the two exports)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from mcsim.server import Server
from tests.bot.pack_sim import REPO

PASSWORD = "plan-file-Pw"
PLAN = """\
version: 1
server: main
planned:
- id: raid
  run: say raid night
  repeat: 0 20 * * 5
  timezone: Europe/Berlin
  announce: 10m,1m
  require: players>=2
  if_not: wait
  max_wait: 30m
  after_wait: run
- id: reset
  run: say reset
  when: 2030-03-30 02:30
  timezone: Europe/Berlin
  retry: 3
  retry_delay: 40
  as_player: Alex
  require: online:Alex
- id: tide
  run: say tide
  when: 2030-01-01 06:00
  repeat: 12h 25m
  paused: true
  require: empty
tasks:
- id: greet
  run: say hi
  time: 400
  as_player: Steve
  require: online:Steve
  if_not: wait
  max_wait: 1m
- id: bell
  run: say bell
  time: 6000
  every: 1200
  retry: 2
  retry_delay: 20
  require: players>=1,players<5
- id: bell
  run: say bell twice
  time: 9000
- id: nap
  run: say nap
  time: 700
  paused: true
  require: empty
  if_not: wait
  max_wait: 2h 30m
  after_wait: run
programs:
- name: evening
  steps:
  - run: say The event starts in 10 minutes
    at: -10m
  - run: function event:start
  - run: function event:round_two
    at: +5m
    after: 2
    limit: 30m
    on_failure: skip
  - run: give @a minecraft:diamond
    at: +20m
  - run: function event:clean_up
    at: +30m
- name: waves
  steps:
  - run: 'scoreboard players add #wave game 1'
    at: 1h
    require: players>=2
    as_player: Alex
"""


def _env(tmp_path: Path, name: str, server: Server) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOOM_")}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["DOOM_DATA_DIR"] = str(tmp_path / f"data-{name}")
    entry = {
        "name": "main",
        "rcon_port": server.rcon_port,
        "rcon_password": PASSWORD,
        "world_dir": str(server.world),
        "log_path": str(server.log_path),
    }
    env["DOOM_SERVERS"] = json.dumps([entry])
    return env


def _bot(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def bots(mcsim: Callable[..., Server], tmp_path: Path) -> tuple[dict[str, str], dict[str, str]]:
    sims = [mcsim(password=PASSWORD, name=name) for name in ("a", "b")]
    for sim in sims:  # a game-time task runs as a player who is online when it is made
        sim.join("Steve")
    first, fresh = (_env(tmp_path, name, sim) for name, sim in zip("ab", sims, strict=True))
    return first, fresh


@pytest.mark.slow
def test_export_import_into_a_fresh_server_and_export_again_is_the_same_document(
    bots: tuple[dict[str, str], dict[str, str]], tmp_path: Path
) -> None:
    first, fresh = bots
    (tmp_path / "plan.yaml").write_text(PLAN)
    dry = _bot(tmp_path, first, "import", "plan.yaml", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "would" in dry.stdout and "add: planned[1] (raid)" in dry.stdout, dry.stdout
    assert "add: programs[2] (waves)" in dry.stdout, dry.stdout
    empty = _bot(tmp_path, first, "export")
    assert empty.returncode == 0, empty.stderr
    assert yaml.safe_load(empty.stdout) == {"version": 1, "server": "main"}  # the dry run made none
    done = _bot(tmp_path, first, "import", "plan.yaml")
    assert done.returncode == 0, done.stderr
    assert "add: tasks[2] (bell)" in done.stdout, done.stdout
    assert "add: tasks[3] (bell)" in done.stdout, done.stdout  # the pack keeps two of one id
    exported = _bot(tmp_path, first, "export")
    assert exported.returncode == 0, exported.stderr
    assert yaml.safe_load(exported.stdout) == yaml.safe_load(PLAN), exported.stdout
    (tmp_path / "exported.yaml").write_text(exported.stdout)
    moved = _bot(tmp_path, fresh, "import", "exported.yaml")
    assert moved.returncode == 0, moved.stderr
    again = _bot(tmp_path, fresh, "export")
    assert again.returncode == 0, again.stderr
    assert again.stdout == exported.stdout
    # importing the same file again leaves everything as it is
    twice = _bot(tmp_path, fresh, "import", "exported.yaml")
    assert twice.returncode == 0 and "add" not in twice.stdout, twice.stdout
    assert twice.stdout.count("leave as it is") == 9, twice.stdout
    assert "leave as it is: programs[1] (evening)" in twice.stdout, twice.stdout
    assert _bot(tmp_path, fresh, "export").stdout == exported.stdout


@pytest.mark.slow
def test_a_wrong_entry_changes_nothing_and_is_named(
    bots: tuple[dict[str, str], dict[str, str]], tmp_path: Path
) -> None:
    first, _fresh = bots
    good = "- id: fine\n  run: say fine\n  repeat: 0 20 * * 5\n"
    cases = {
        "stop": ("planned[2] (halt)", "stop"),
        "past": ("planned[2] (halt)", "in the past"),
        "typo": ("planned[2] (halt): unknown key `whenn`", "did you mean `when`?"),
    }
    for case, (where, why) in cases.items():
        bad = {
            "stop": "- id: halt\n  run: stop\n  when: 2030-01-01 10:00\n",
            "past": "- id: halt\n  run: say late\n  when: 2020-01-01 10:00\n",
            "typo": "- id: halt\n  run: say x\n  whenn: 2030-01-01 10:00\n",
        }[case]
        (tmp_path / f"{case}.yaml").write_text(f"version: 1\nserver: main\nplanned:\n{good}{bad}")
        refused = _bot(tmp_path, first, "import", f"{case}.yaml")
        assert refused.returncode == 1, (case, refused.stdout, refused.stderr)
        assert where in refused.stderr and why in refused.stderr, (case, refused.stderr)
        exported = _bot(tmp_path, first, "export")
        assert yaml.safe_load(exported.stdout) == {"version": 1, "server": "main"}, case
    event = "events:\n- name: Raid\n  start: 2030-01-01 20:00\n  end: 2030-01-01 21:00\n"
    (tmp_path / "event.yaml").write_text(f"version: 1\nserver: main\nplanned:\n{good}{event}")
    refused = _bot(tmp_path, first, "import", "event.yaml")
    assert refused.returncode == 1 and "events[1] (Raid)" in refused.stderr, refused.stderr
    assert "connected to Discord" in refused.stderr, refused.stderr
    (tmp_path / "v2.yaml").write_text("version: 2\nserver: main\n")
    refused = _bot(tmp_path, first, "import", "v2.yaml")
    assert refused.returncode == 1 and "version 2" in refused.stderr, refused.stderr
