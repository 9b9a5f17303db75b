"""bot.minecraft.installer: copying the pack into a world, reload, enable, and verifying what the
server says.

The RCON side runs over real TCP against mcsim's RconServer. The game behind it is a small
stand-in defined here that answers `reload`, `datapack list|enable` and `data get storage` from
the world folder the way vanilla words them, so the installer's decisions (enable a disabled pack,
refuse to call an unverified install a success) can each be forced.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bot.config import ServerConfig
from bot.errors import ServerUnavailable
from bot.minecraft.installer import (
    PACK_ID,
    InstallError,
    PackInstaller,
    bundled_datapack,
    is_pack_enabled,
    pack_version_of,
    read_pack_version,
)
from bot.minecraft.rcon import RconClient

if TYPE_CHECKING:
    from mcsim.server import Server
    from tests.bot.conftest import RconHarness


def make_pack(folder: Path, version: str, *, extra: dict[str, str] | None = None) -> Path:
    mcmeta = {"pack": {"description": "doom.schedule", "pack_format": 48}}
    (folder / "data/doom.schedule/function").mkdir(parents=True, exist_ok=True)
    (folder / "pack.mcmeta").write_text(json.dumps(mcmeta))
    (folder / "data/doom.schedule/function/load.mcfunction").write_text(
        "# sets the version\n"
        f'data modify storage doom.schedule:const version set value "{version}"\n'
    )
    for name, text in (extra or {}).items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def make_world(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "level.dat").write_bytes(b"\x1f\x8b")  # only its presence matters here
    return folder


@dataclass
class FakeGame:
    """Vanilla's answers to the commands the installer sends, computed from the world folder."""

    world: Path
    disabled: set[str] = field(default_factory=set)
    enabled: list[str] = field(default_factory=lambda: ["vanilla"])
    storage_version: str | None = None
    load_version_override: str | None = None  # a #load that writes something else
    broken: bool = False  # the pack fails to load (bad pack.mcmeta, say)
    commands: list[str] = field(default_factory=list)

    def _packs(self) -> list[str]:
        root = self.world / "datapacks"
        if not root.is_dir():
            return []
        return [f"file/{p.name}" for p in sorted(root.iterdir()) if (p / "pack.mcmeta").is_file()]

    def _reload(self) -> None:
        for pack in self._packs():
            if pack not in self.enabled and pack not in self.disabled and not self.broken:
                self.enabled.append(pack)
        if PACK_ID in self.enabled:
            folder = self.world / "datapacks" / PACK_ID.removeprefix("file/")
            self.storage_version = self.load_version_override or pack_version_of(folder)

    def __call__(self, command: str) -> str:
        self.commands.append(command)
        if command == "reload":
            self._reload()
            return "Reloading!"
        if command == "datapack list enabled":
            shown = ", ".join(
                f"[{p} (world)]" if p.startswith("file/") else f"[{p} (built-in)]"
                for p in self.enabled
            )
            return f"There are {len(self.enabled)} data pack(s) enabled: {shown}"
        if command == "datapack list available":
            rest = [p for p in self._packs() if p not in self.enabled]
            if not rest:
                return "There are no more data packs available"
            shown = ", ".join(f"[{p} (world)]" for p in rest)
            return f"There are {len(rest)} data pack(s) available: {shown}"
        if command == f'datapack enable "{PACK_ID}"':
            self.disabled.discard(PACK_ID)
            if not self.broken:
                self.enabled.append(PACK_ID)
                self._reload()
            return f"Enabling data pack [{PACK_ID} (world)]"
        if command == "data get storage doom.schedule:const version":
            if self.storage_version is None:
                return "Found no elements matching version"
            return (
                f'Storage doom.schedule:const has the following contents: "{self.storage_version}"'
            )
        return f"Unknown or incomplete command, see below for error\n{command}<--[HERE]"


@pytest.fixture
def world(tmp_path: Path) -> Path:
    return make_world(tmp_path / "world")


@pytest.fixture
def game(world: Path, rcon_harness: RconHarness) -> FakeGame:
    fake = FakeGame(world)
    rcon_harness.script.handler = fake
    return fake


def installer_for(
    h: RconHarness, world: Path | None, source: Path, **kw: float
) -> tuple[PackInstaller, RconClient]:
    rcon = RconClient("127.0.0.1", h.port, h.password, timeout=2.0, name="main")
    config = ServerConfig(name="main", rcon_port=h.port, rcon_password=h.password, world_dir=world)  # type: ignore[arg-type]
    opts = {"verify_timeout": 2.0, "poll_interval": 0.02} | kw
    return PackInstaller(rcon, config, source=source, **opts), rcon


async def test_fresh_install_is_copied_enabled_and_verified(
    tmp_path: Path, world: Path, game: FakeGame, rcon_harness: RconHarness
) -> None:
    source = make_pack(tmp_path / "src", "1.2.0", extra={"__pycache__/x.pyc": "junk"})
    installer, rcon = installer_for(rcon_harness, world, source)
    try:
        report = await installer.install()
    finally:
        await rcon.close()
    assert report.ok, report
    assert (report.action, report.version, report.expected_version) == (
        "installed",
        "1.2.0",
        "1.2.0",
    )
    assert report.enabled and not report.enabled_by_us
    target = world / "datapacks" / "doom.schedule"
    assert (target / "pack.mcmeta").is_file()
    assert not (target / "__pycache__").exists()
    assert names(world) == ["datapacks", "level.dat"]  # no staging left
    assert "1.2.0 installed" in report.summary()
    assert game.commands[0] == "data get storage doom.schedule:const version"
    # vanilla (it knows no `minecraft:` names, no `carpet`): plain `reload`, once
    assert [c for c in game.commands if "reload" in c] == ["reload"]


async def test_upgrade_replaces_files_in_place(
    tmp_path: Path, world: Path, game: FakeGame, rcon_harness: RconHarness
) -> None:
    old = make_pack(
        tmp_path / "v1", "1.0.0", extra={"data/doom.schedule/function/gone.mcfunction": "say x"}
    )
    new = make_pack(tmp_path / "v2", "2.0.0")
    installer, rcon = installer_for(rcon_harness, world, old)
    try:
        assert (await installer.install()).ok
        installer.source = new
        report = await installer.install()
        again = await installer.install()
    finally:
        await rcon.close()
    assert report.ok and report.action == "upgraded"
    assert (report.previous_version, report.version) == ("1.0.0", "2.0.0")
    assert "(was 1.0.0)" in report.summary()
    assert not (
        world / "datapacks/doom.schedule/data/doom.schedule/function/gone.mcfunction"
    ).exists()
    assert again.ok and again.action == "reinstalled"


async def test_disabled_pack_gets_enabled(
    tmp_path: Path, world: Path, game: FakeGame, rcon_harness: RconHarness
) -> None:
    game.disabled.add(PACK_ID)
    installer, rcon = installer_for(rcon_harness, world, make_pack(tmp_path / "src", "1.0.0"))
    try:
        report = await installer.install()
    finally:
        await rcon.close()
    assert report.ok and report.enabled_by_us
    assert f'datapack enable "{PACK_ID}"' in game.commands
    assert "enabled it" in report.summary()


async def test_pack_that_does_not_load_is_not_reported_as_success(
    tmp_path: Path, world: Path, game: FakeGame, rcon_harness: RconHarness
) -> None:
    game.broken = True
    installer, rcon = installer_for(
        rcon_harness, world, make_pack(tmp_path / "src", "1.0.0"), verify_timeout=0.3
    )
    try:
        report = await installer.install()
    finally:
        await rcon.close()
    assert not report.ok and not report.enabled
    assert report.problem is not None and "not list" in report.problem
    assert "not verified" in report.summary()


async def test_wrong_version_read_back_is_not_success(
    tmp_path: Path, world: Path, game: FakeGame, rcon_harness: RconHarness
) -> None:
    game.load_version_override = "0.9.0"  # e.g. a second copy of the pack that loads last
    installer, rcon = installer_for(
        rcon_harness, world, make_pack(tmp_path / "src", "1.0.0"), verify_timeout=0.3
    )
    try:
        report = await installer.install()
    finally:
        await rcon.close()
    assert not report.ok and report.enabled
    assert report.version == "0.9.0"
    assert report.problem is not None and "0.9.0" in report.problem and "1.0.0" in report.problem


async def test_not_a_world_is_refused_and_untouched(
    tmp_path: Path, rcon_harness: RconHarness
) -> None:
    folder = tmp_path / "not-a-world"
    folder.mkdir()
    installer, rcon = installer_for(rcon_harness, folder, make_pack(tmp_path / "src", "1.0.0"))
    with pytest.raises(InstallError, match=r"level\.dat"):
        await installer.install()
    await rcon.close()
    assert names(folder) == []
    assert rcon_harness.script.received == []


async def test_no_world_dir_says_it_needs_file_access(
    tmp_path: Path, rcon_harness: RconHarness
) -> None:
    installer, rcon = installer_for(rcon_harness, None, make_pack(tmp_path / "src", "1.0.0"))
    with pytest.raises(InstallError) as info:
        await installer.install()
    await rcon.close()
    text = str(info.value)
    assert "no file access" in text and "world_dir" in text and "/reload" in text


async def test_unreachable_server_changes_no_files(
    tmp_path: Path, world: Path, rcon_harness: RconHarness
) -> None:
    rcon_harness.stop()
    installer, rcon = installer_for(rcon_harness, world, make_pack(tmp_path / "src", "1.0.0"))
    rcon.timeout = 0.3
    with pytest.raises(ServerUnavailable):
        await installer.install()
    await rcon.close()
    assert not (world / "datapacks").exists()


async def test_read_pack_version_parses_vanilla_replies(
    game: FakeGame, rcon_harness: RconHarness
) -> None:
    rcon = RconClient("127.0.0.1", rcon_harness.port, rcon_harness.password)
    try:
        assert await read_pack_version(rcon) is None
        game.storage_version = 'weird \\"quoted\\" 1'
        assert await read_pack_version(rcon) == 'weird "quoted" 1'
    finally:
        await rcon.close()


def test_listing_parser_matches_only_our_pack() -> None:
    assert is_pack_enabled(
        "There are 2 data pack(s) enabled: [vanilla (built-in)], [file/doom.schedule (world)]"
    )
    assert is_pack_enabled("There are 1 data pack(s) enabled: [file/doom.schedule]")
    assert not is_pack_enabled(
        "There are 2 data pack(s) enabled: [vanilla (built-in)], [file/doom.schedule.old (world)]"
    )
    assert not is_pack_enabled("There are no data packs enabled")


def test_pack_version_of_reads_the_load_function(tmp_path: Path) -> None:
    assert pack_version_of(make_pack(tmp_path / "a", "3.1.4")) == "3.1.4"
    bare = tmp_path / "b"
    shutil.copytree(tmp_path / "a", bare)
    (bare / "data/doom.schedule/function/load.mcfunction").write_text("say no version\n")
    assert pack_version_of(bare) is None


async def test_install_runs_off_the_event_loop(
    tmp_path: Path, world: Path, game: FakeGame, rcon_harness: RconHarness
) -> None:
    # The files copy in a worker thread: between the command sent before the copy and the one
    # sent after it, the loop keeps serving other coroutines. The ticker sleeps a real
    # millisecond rather than `sleep(0)`: a loop spinning flat out starves the RCON server's
    # own thread of the GIL (a CI run saw `reload` go unanswered for 2 s).
    extra = {f"data/doom.schedule/function/f{i}.mcfunction": "say hi\n" * 50 for i in range(300)}
    installer, rcon = installer_for(
        rcon_harness, world, make_pack(tmp_path / "src", "1.0.0", extra=extra)
    )
    ticks = 0
    ticks_at: list[int] = []  # the tick count as each command reached the server

    def counting(command: str) -> str:
        ticks_at.append(ticks)
        return game(command)

    rcon_harness.script.handler = counting

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.001)

    task = asyncio.create_task(ticker())
    try:
        report = await installer.install()
    finally:
        task.cancel()
        await rcon.close()
    assert report.ok
    assert len(names(world / "datapacks/doom.schedule/data/doom.schedule/function")) == 301
    # The version is read before the copy, the game time right after it.
    assert game.commands[:2] == [
        "data get storage doom.schedule:const version",
        "minecraft:time query gametime",
    ]
    during_copy = ticks_at[1] - ticks_at[0]
    assert during_copy >= 5, f"the loop ticked {during_copy} times while 300 files copied"


def test_pack_version_of_reads_a_compound_write(tmp_path: Path) -> None:
    pack = make_pack(tmp_path / "a", "0.0.0")
    (pack / "data/doom.schedule/function/load.mcfunction").write_text(
        '# version: "9.9.9" in a comment does not count\n'
        'data merge storage doom.schedule:const {units: {t: 1}, version: "2.1.0"}\n'
    )
    assert pack_version_of(pack) == "2.1.0"


# -- against the full mcsim server and the repository's own pack --------------------------------


@pytest.fixture(params=["vanilla", "paper", "paper-1.21.6", "spigot", "fabric", "fabric-carpet"])
def mcsim_world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Server, Path]]:
    """A realtime mcsim of each flavour (mcsim/flavours.py); the installer has no log path, so
    it tells the software by RCON probes."""
    from mcsim.server import Server

    world = tmp_path / "world"
    server = Server(world, rcon_port=0, rcon_password="pack-install-pw", flavour=request.param)
    server.start(realtime=True)
    # a world from the first start on: level.dat is written at start-up, as vanilla does
    assert (world / "level.dat").is_file()
    try:
        yield server, world
    finally:
        server.stop()


def _mcsim_installer(server: Server, world: Path, source: Path) -> tuple[PackInstaller, RconClient]:
    assert server.rcon_port is not None
    rcon = RconClient("127.0.0.1", server.rcon_port, "pack-install-pw", timeout=5.0)
    config = ServerConfig(
        name="sim",
        rcon_port=server.rcon_port,
        rcon_password="pack-install-pw",
        world_dir=world,  # type: ignore[arg-type]
    )
    return PackInstaller(rcon, config, source=source, verify_timeout=10.0, poll_interval=0.05), rcon


async def test_mcsim_install_then_upgrade_keeps_queued_tasks(
    tmp_path: Path, mcsim_world: tuple[Server, Path]
) -> None:
    server, world = mcsim_world
    bundled = bundled_datapack()
    shipped = pack_version_of(bundled)
    assert shipped is not None
    installer, rcon = _mcsim_installer(server, world, bundled)
    try:
        first = await installer.install()
        assert first.ok, first
        assert (first.action, first.version) == ("installed", shipped)
        # A task far in the future, written where the pack keeps its queue (README: storage).
        queued = await rcon.command(
            "data modify storage doom.schedule:data queue append value "
            '{id:"keepme",run:"say still here",due:2000000000,n:1}'
        )
        assert queued.startswith("Modified storage"), queued
        assert [t["id"] for t in server.storage("doom.schedule:data")["queue"]] == ["keepme"]

        # A newer pack: same files, a new version, one file more.
        newer = tmp_path / "newer"
        shutil.copytree(bundled, newer)
        load = next(newer.rglob("load.mcfunction"))
        load.write_text(load.read_text().replace(f'"{shipped}"', '"99.0.0"'))
        assert pack_version_of(newer) == "99.0.0"
        installer.source = newer
        upgrade = await installer.install()
    finally:
        await rcon.close()
    assert upgrade.ok, upgrade
    assert (upgrade.action, upgrade.previous_version, upgrade.version) == (
        "upgraded",
        shipped,
        "99.0.0",
    )
    assert [t["id"] for t in server.storage("doom.schedule:data")["queue"]] == ["keepme"]
    # Every command the installer sent: none is a plugin reload on this flavour.
    assert not [c for c in server.rcon_commands if server.flavour.is_plugin_reload(c)]
    assert server.flavour_state.plugin_reloads == 0
    expected = "minecraft:reload" if server.flavour.family == "bukkit" else "reload"
    assert [c for c in server.rcon_commands if "reload" in c] == [expected, expected]
    assert installer.software is not None
    # over RCON alone, Fabric without Carpet answers exactly as vanilla does
    seen_as = {"bukkit": "bukkit", "vanilla": "vanilla", "fabric": "vanilla"}
    want = "fabric" if server.flavour.carpet else seen_as[server.flavour.family]
    assert installer.software.family == want


@pytest.mark.slow
async def test_mcsim_disabled_pack_is_enabled_again(mcsim_world: tuple[Server, Path]) -> None:
    server, world = mcsim_world
    installer, rcon = _mcsim_installer(server, world, bundled_datapack())
    try:
        assert (await installer.install()).ok
        assert "Disabling" in await rcon.command(f'datapack disable "{PACK_ID}"')
        report = await installer.install()
    finally:
        await rcon.close()
    assert report.ok and report.enabled_by_us and report.action == "reinstalled"
