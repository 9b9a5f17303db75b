"""`python -m bot`: each command run as a real process against mcsim servers over TCP RCON."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.minecraft.installer import pack_version_of
from mcsim.server import Server
from tests.bot.pack_sim import PASSWORD, REPO, PackSim, running_sim

VERSION = pack_version_of(REPO / "datapack")


def env_for(tmp_path: Path, servers: list[dict[str, object]] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOOM_")}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["DOOM_DATA_DIR"] = str(tmp_path / "botdata")
    if servers is not None:
        env["DOOM_SERVERS"] = json.dumps(servers)
    return env


def bot(
    tmp_path: Path, *args: str, env: dict[str, str], stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=tmp_path,  # no .env of the repository is read
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def server_entry(sim: PackSim, **extra: object) -> dict[str, object]:
    entry: dict[str, object] = {
        "name": "sim",
        "rcon_port": sim.server.rcon_port,
        "rcon_password": PASSWORD,
        "world_dir": str(sim.world),
        "log_path": str(sim.server.log_path),
    }
    entry.update(extra)
    return entry


@pytest.fixture
def live(tmp_path: Path) -> Iterator[PackSim]:
    yield from running_sim(tmp_path / "world", realtime=True)


def test_check_reports_each_part(tmp_path: Path, live: PackSim) -> None:
    proc = bot(tmp_path, "check", env=env_for(tmp_path, [server_entry(live)]))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "server 'sim'" in out and "RCON: reachable (The time is" in out
    assert f"pack: doom.schedule {VERSION}" in out
    assert f"log: {live.server.log_path} readable" in out
    assert "broadcast-rcon-to-ops: true" in out  # mcsim's default file, as vanilla's
    assert "check: all good" in out
    assert PASSWORD not in out + proc.stderr


@pytest.mark.slow
def test_check_names_the_allow_list_and_a_damaged_pack(tmp_path: Path, live: PackSim) -> None:
    env = env_for(tmp_path, [server_entry(live)])
    proc = bot(tmp_path, "check", env=env)
    assert "pack state: ok (objectives and storages in place)" in proc.stdout
    assert "allow-list: not set" in proc.stdout and "DOOM_ALLOWED_COMMANDS" in proc.stdout
    live.server.run("scoreboard objectives remove doom.schedule.left")
    env["DOOM_ALLOWED_COMMANDS"] = "say,give,function:myevents"
    proc = bot(tmp_path, "check", env=env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "allow-list: tasks may run only say, give, function:myevents" in proc.stdout
    assert (
        "pack state: damaged: the scoreboard objective doom.schedule.left is missing. Run /setup"
        in proc.stdout
    )
    env["DOOM_ALLOWED_COMMANDS"] = "say,function:My Events"
    proc = bot(tmp_path, "check", env=env)
    assert proc.returncode != 0
    assert "DOOM_ALLOWED_COMMANDS: 'function:My Events' is neither a command" in proc.stderr


def test_check_says_which_version_and_level_commands_are_checked_against(
    tmp_path: Path, live: PackSim
) -> None:
    # a vanilla layout beside the live sim: server.properties and logs/ in the server folder
    folder = tmp_path / "vanilla"
    (folder / "world").mkdir(parents=True)
    (folder / "logs").mkdir()
    (folder / "logs" / "latest.log").write_text(
        "[12:00:00] [Server thread/INFO]: Starting minecraft server version 1.21.11\n"
    )
    (folder / "server.properties").write_text(
        "broadcast-rcon-to-ops=false\nfunction-permission-level=3\n"
    )
    reported = server_entry(
        live,
        name="vanilla",
        world_dir=str(folder / "world"),
        log_path=str(folder / "logs" / "latest.log"),
    )
    blind = server_entry(live, name="blind", log_path=None, world_dir=None, event_source="rcon")
    proc = bot(tmp_path, "check", env=env_for(tmp_path, [reported, blind]))
    vanilla, _, unknown = proc.stdout.partition("server 'blind'")
    assert "Minecraft: 1.21.11 (from the server's log); commands checked against the 1.21 tree" in (
        vanilla
    )
    assert "function-permission-level: 3" in vanilla and "broadcast-rcon-to-ops: false" in vanilla
    assert "WARNING" not in vanilla
    assert "Minecraft: unknown (log not readable and no minecraft_version setting)" in unknown
    assert "WARNING: The Minecraft version of the server is unknown" in unknown
    assert "newest command tree (1.21)" in unknown
    assert "function-permission-level: 2 (vanilla's default" in unknown


def test_check_fails_when_rcon_is_unreachable(tmp_path: Path, live: PackSim) -> None:
    entry = server_entry(live, rcon_password="wrong-password", log_path=str(tmp_path / "nope.log"))
    proc = bot(tmp_path, "check", env=env_for(tmp_path, [entry]))
    assert proc.returncode == 1
    assert "RCON: NOT reachable" in proc.stdout and "refused the RCON password" in proc.stdout
    assert "NOT readable" in proc.stdout and "problems found" in proc.stdout
    assert "wrong-password" not in proc.stdout + proc.stderr


@pytest.mark.slow
def test_install_datapack_into_a_configured_world(tmp_path: Path) -> None:
    world = tmp_path / "bare"
    # as the README asks (no RCON echo, no empty-server pause): the selftest that ends the
    # install then passes
    world.mkdir()
    (world / "server.properties").write_text(
        "broadcast-rcon-to-ops=false\npause-when-empty-seconds=0\n"
    )
    server = Server(world, rcon_port=0, rcon_password=PASSWORD)
    server.start(realtime=True)  # writes level.dat, as vanilla does at start-up
    try:
        entry = {
            "name": "bare",
            "rcon_port": server.rcon_port,
            "rcon_password": PASSWORD,
            "world_dir": str(world),
        }
        proc = bot(tmp_path, "install-datapack", env=env_for(tmp_path, [entry]))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert f"doom.schedule {VERSION} installed on server 'bare'" in proc.stdout
        assert "PASS marker task" in proc.stdout and "selftest of 'bare' passed" in proc.stdout
        assert server.storage("doom.schedule:const")["version"] == VERSION
        again = bot(
            tmp_path, "install-datapack", "--server", "bare", env=env_for(tmp_path, [entry])
        )
        assert again.returncode == 0 and "reinstalled" in again.stdout
        unknown = bot(tmp_path, "install-datapack", "--server", "x", env=env_for(tmp_path, [entry]))
        assert unknown.returncode == 2 and "no server 'x'" in unknown.stderr
    finally:
        server.stop()


def test_bad_settings_name_the_variable(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    env["DOOM_RCON_TIMEOUT"] = "soon"
    proc = bot(tmp_path, "check", env=env)
    assert proc.returncode == 2 and "DOOM_RCON_TIMEOUT" in proc.stderr


def test_run_needs_a_token(tmp_path: Path) -> None:
    proc = bot(tmp_path, "run", env=env_for(tmp_path))
    assert proc.returncode == 2 and "DOOM_DISCORD_TOKEN" in proc.stderr


@pytest.mark.slow
def test_no_server_and_no_token_is_the_console_on_an_embedded_world(tmp_path: Path) -> None:
    proc = bot(tmp_path, env=env_for(tmp_path), stdin="")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "embedded mcsim world" in proc.stderr
    assert (tmp_path / "botdata" / "world" / "datapacks" / "doom.schedule").is_dir()


@pytest.mark.slow
def test_check_on_the_embedded_world(tmp_path: Path) -> None:
    proc = bot(tmp_path, "check", env=env_for(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "server 'embedded'" in proc.stdout and f"doom.schedule {VERSION}" in proc.stdout
    assert "broadcast-rcon-to-ops: false" in proc.stdout


async def test_events_prints_events_as_they_come_and_stops_on_ctrl_c(
    tmp_path: Path, live: PackSim
) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "events",
        cwd=tmp_path,
        env=env_for(tmp_path, [server_entry(live)]),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None
    try:
        first = await asyncio.wait_for(proc.stdout.readline(), 60)
        assert b"[sim] following events (log)" in first
        pack = live.client()
        try:
            await pack.schedule("function nope:missing", 0, "t", "boom", retry=1)
        finally:
            await pack.rcon.close()
        lines = []
        for _ in range(4):  # each attempt of a task the bot made says ran first
            lines.append((await asyncio.wait_for(proc.stdout.readline(), 30)).decode())
        assert " ran id=boom " in lines[0] and " ran id=boom " in lines[2]
        assert " retry id=boom " in lines[1] and "retry=0" in lines[1]
        assert " retry_exhausted id=boom " in lines[3]
        assert lines[0].startswith("[sim] seq=")
        proc.send_signal(signal.SIGINT)
        assert await asyncio.wait_for(proc.wait(), 30) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


@pytest.mark.slow
def test_selftest_on_the_embedded_world(tmp_path: Path) -> None:
    proc = bot(tmp_path, "selftest", env=env_for(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert all(line.split(" ", 1)[0] in ("PASS", "WARN") for line in lines[:-1]), proc.stdout
    assert "PASS event source" in proc.stdout and "PASS retry counts" in proc.stdout
    warned = sum(line.startswith("WARN ") for line in lines[:-1])
    summary = "passed in " if not warned else f"passed, {warned} warning{'s' * (warned > 1)} in "
    assert lines[-1].startswith(f"selftest of 'embedded' {summary}"), proc.stdout


@pytest.mark.slow
def test_selftest_exits_1_and_says_what_to_do_when_a_check_fails(
    tmp_path: Path, live: PackSim
) -> None:
    live.server.run("tick freeze")
    proc = bot(tmp_path, "selftest", "--server", "sim", env=env_for(tmp_path, [server_entry(live)]))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "FAIL game time: frozen (`tick freeze`)" in proc.stdout
    assert "tick unfreeze" in proc.stdout
    unknown = bot(
        tmp_path, "selftest", "--server", "x", env=env_for(tmp_path, [server_entry(live)])
    )
    assert unknown.returncode == 2 and "no server 'x'" in unknown.stderr


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


async def test_selftest_interrupted_by_ctrl_c_removes_what_it_made(
    tmp_path: Path, live: PackSim
) -> None:
    def selftest_tasks() -> list[str]:
        return [i for which in ("queue", "paused") for i in live.ids(which) if "selftest" in i]

    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "selftest",
        cwd=tmp_path,
        env=env_for(tmp_path, [server_entry(live)]),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        # as from a terminal: a suite started in the background (`cmd &` in a script) passes
        # SIGINT on ignored, and Python then installs no KeyboardInterrupt for it
        preexec_fn=_sigint_default,
    )
    try:
        async with asyncio.timeout(60):
            while not selftest_tasks():  # its marker is queued: it is in the middle
                assert proc.returncode is None, await proc.communicate()
                await asyncio.sleep(0.02)
        # the game stands still from here (vanilla's `tick freeze`), so the selftest's timed
        # checks wait and the signal comes in the middle: the whole selftest takes under 3 s,
        # and a loaded machine's look at the queue came after its end
        live.server.run("tick freeze")
        proc.send_signal(signal.SIGINT)
        out, err = await asyncio.wait_for(proc.communicate(), 30)
        if proc.returncode != 130:  # in full under "Captured stdout", for the reader
            print(f"stdout:\n{out.decode()}\nstderr:\n{err.decode()}")
        assert proc.returncode == 130
        assert selftest_tasks() == []
        assert not live.server.storage("doom.selftest:run")
        objectives = live.server.run("scoreboard objectives list").feedback
        assert not any("doom.selftest" in line for line in objectives)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


def test_selftest_with_a_wrong_password_fails_at_rcon_and_changes_nothing(
    tmp_path: Path, live: PackSim
) -> None:
    before = live.server.storage("doom.schedule:data")
    entry = server_entry(live, rcon_password="wrong-password")
    proc = bot(tmp_path, "selftest", env=env_for(tmp_path, [entry]))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "FAIL rcon: " in proc.stdout and "rcon_password" in proc.stdout
    assert "wrong-password" not in proc.stdout + proc.stderr
    assert live.server.storage("doom.schedule:data") == before
