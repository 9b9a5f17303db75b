"""The command checker loads mecha on its first check: `python -m bot export` and `check` never
check a command and so never import it (~0.7 s of CPU per process); `import` of a plan with a
new task does, and refuses a bad command as before. Each command a real process against mcsim."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from mcsim.server import Server
from tests.bot.pack_sim import REPO

PASSWORD = "lazy-Pw"


def _imported(stderr: str) -> set[str]:
    """The modules `python -X importtime` reports (one `import time: self | total | name` line
    each)."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def _bot(tmp_path: Path, server: Server, *args: str) -> tuple[int, str, set[str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOOM_")}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["DOOM_DATA_DIR"] = str(tmp_path / "data")
    entry = {
        "name": "main",
        "rcon_port": server.rcon_port,
        "rcon_password": PASSWORD,
        "world_dir": str(server.world),
        "log_path": str(server.log_path),
    }
    env["DOOM_SERVERS"] = json.dumps([entry])
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bot", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = (done.stdout + done.stderr).splitlines()
    said = [line for line in lines if not line.startswith("import time:")]
    return done.returncode, "\n".join(said), _imported(done.stderr)


def test_only_a_command_that_checks_a_command_imports_mecha(
    mcsim: Callable[..., Server], tmp_path: Path
) -> None:
    server = mcsim(password=PASSWORD)
    for command in ("export", "check"):
        code, said, modules = _bot(tmp_path, server, command)
        assert code == 0, said
        assert "mecha" not in modules, command
        assert "bot.minecraft.command_check" in modules, command  # the checker was still built
    (tmp_path / "bad.yaml").write_text(
        "version: 1\nserver: main\ntasks:\n- id: op\n  run: op Steve\n  time: 400\n"
    )
    code, said, modules = _bot(tmp_path, server, "import", "bad.yaml")
    assert code == 1 and "`op` is on this server's deny-list" in said, said  # parsed first
    assert "mecha" in modules
