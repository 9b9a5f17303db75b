"""Ships the doom.schedule data pack into a server's world and proves it is running.

Steps: copy the repository's `datapack/` folder into `<world>/datapacks/doom.schedule` (through a
staging folder, so the server never sees half a pack), reload over RCON (`minecraft:reload` on a
Bukkit-family server, whose plain `reload` may reload every plugin; `reload` on vanilla and
Fabric, which have no `minecraft:` names: bot/minecraft/software.py), enable the pack if the
server lists it as available but not enabled (an admin may have disabled it once, and vanilla
then keeps it disabled), then verify: `datapack list enabled` names it and
`doom.schedule:const version` reads back as the version of the files just copied.

Upgrading is the same: the files are replaced and reloaded; queued tasks live in command storage,
which `reload` does not touch, so they survive. Nothing is reported as done unless it was seen.

The files go through a `PackFiles`: the world folder on this machine (`LocalWorld`, world_dir),
or the server's folder on another one over SFTP (bot/minecraft/sftp_files.py `SftpWorld`, the
world named by server.properties' level-name); the steps after the copy are the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Literal, Protocol

from bot.config import ServerConfig
from bot.errors import BotError
from bot.i18n import _, lazy
from bot.minecraft.rcon import RconClient
from bot.minecraft.software import ServerSoftware, detect_software, strip_colours

__all__ = [
    "IGNORED",
    "PACK_DIR_NAME",
    "PACK_ID",
    "InstallError",
    "InstallReport",
    "LocalWorld",
    "PackFiles",
    "PackInstaller",
    "bundled_datapack",
    "installer_for",
    "is_pack_enabled",
    "pack_version_of",
    "read_pack_version",
]

log = logging.getLogger(__name__)

PACK_DIR_NAME = "doom.schedule"
PACK_ID = f"file/{PACK_DIR_NAME}"  # vanilla's id for a folder pack in <world>/datapacks
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".*", "*.py")
_VERSION_SET = re.compile(
    r"data\s+modify\s+storage\s+doom\.schedule:const\s+version\s+set\s+value\s+"
    r"(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|[^\s]+)"
)
# ... or as a key of a compound written to the same storage: `{version: "2.0.0", ...}`.
_VERSION_KEY = re.compile(r"\bversion\s*:\s*(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')")
_STORAGE_REPLY = "Storage doom.schedule:const has the following contents: "
# `[file/doom.schedule (world)]` in 1.21 (`[file/doom.schedule]` before the source decoration).
_LISTED = re.compile(r"\[" + re.escape(PACK_ID) + r"(?: \([^)\]]*\))?\]")


class InstallError(BotError):
    """The pack cannot be installed as asked; nothing was changed."""


@dataclass(frozen=True, slots=True)
class InstallReport:
    """What the installer did and what it saw afterwards; `ok` only when both checks passed."""

    server: str
    pack_dir: PurePath
    action: Literal["installed", "upgraded", "reinstalled"]
    previous_version: str | None
    expected_version: str | None  # read from the copied files; None if they do not say
    version: str | None  # read back from the running server
    enabled: bool  # seen in `datapack list enabled`
    enabled_by_us: bool  # we ran `datapack enable`
    ok: bool
    problem: str | None = None
    steps: tuple[str, ...] = field(default=())

    def summary(self) -> str:
        if not self.ok:
            return _(
                "The pack was copied to {path} but is not verified: {problem}",
                path=self.pack_dir,
                problem=self.problem,
            )
        was = (
            _(" (was {version})", version=self.previous_version)
            if self.action == "upgraded"
            else ""
        )
        enabled = _(" and enabled it") if self.enabled_by_us else ""
        actions = {
            "installed": _("installed"),
            "upgraded": _("upgraded"),
            "reinstalled": _("reinstalled"),
        }
        return _(
            "doom.schedule {version} {action}{was} on server {server}{enabled}; "
            "the server lists it as enabled and reports that version.",
            version=self.version,
            action=actions.get(self.action, self.action),
            was=was,
            server=repr(self.server),
            enabled=enabled,
        )


def bundled_datapack() -> Path:
    """The pack shipped with the bot: the checkout's `datapack/` (source or editable install), or
    `bot/_datapack/` inside an installed wheel (pyproject maps the package `bot._datapack` to the
    `datapack` folder)."""
    package = Path(__file__).resolve().parent.parent  # bot/
    candidates = (package.parent / "datapack", package / "_datapack")
    for candidate in candidates:
        if (candidate / "pack.mcmeta").is_file():
            return candidate
    looked = " and ".join(str(c) for c in candidates)
    raise InstallError(
        lazy("The doom.schedule data pack files were not found (looked in {paths}).", paths=looked)
    )


def pack_version_of(folder: Path) -> str | None:
    """The version the pack's #load function writes to `doom.schedule:const version`, if stated."""
    for path in sorted(folder.rglob("*.mcfunction")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.lstrip().startswith("#") or "doom.schedule:const" not in line:
                continue
            m = _VERSION_SET.search(line) or _VERSION_KEY.search(line)
            if m:
                return _snbt_scalar(m.group(1))
    return None


def _snbt_scalar(text: str) -> str:
    """An SNBT string or number as plain text: quotes and escapes removed, suffixes dropped."""
    text = text.strip()
    if len(text) >= 2 and text[0] in "\"'" and text[-1] == text[0]:
        return re.sub(r"\\(.)", r"\1", text[1:-1])
    return re.sub(r"(?<=\d)[bBsSlLfFdD]$", "", text)


async def read_pack_version(rcon: RconClient) -> str | None:
    """`doom.schedule:const version` on the running server; None when the pack never set it."""
    reply = strip_colours(await rcon.command("data get storage doom.schedule:const version"))
    reply = reply.removesuffix("\n")
    if reply.startswith(_STORAGE_REPLY):
        return _snbt_scalar(reply[len(_STORAGE_REPLY) :])
    if reply.startswith("Found no elements matching"):
        return None
    raise InstallError(
        lazy("Unexpected answer to reading the pack's version: {reply}", reply=reply[:200])
    )


def _answer(reply: str) -> str:
    """A server's answer as a step of the report (the server's own words are not translated)."""
    return reply.strip() or _("(no answer)")


def is_pack_enabled(datapack_list_reply: str) -> bool:
    """Whether a `datapack list enabled` reply names our pack."""
    return bool(_LISTED.search(datapack_list_reply))


class PackFiles(Protocol):
    """Where the pack's files go: the world folder, and the copy into it."""

    async def world(self) -> PurePath:
        """The world folder (InstallError, changing nothing, when it is not one)."""
        ...

    async def exists(self, path: PurePath) -> bool: ...

    async def replace_tree(self, source: Path, target: PurePath) -> None:
        """Put a copy of `source` (without IGNORED files) at `target`, whole or not at all."""
        ...


class LocalWorld:
    """The world folder on the bot's own machine (world_dir)."""

    def __init__(self, server: ServerConfig) -> None:
        self.server = server

    async def world(self) -> PurePath:
        world = self.server.world_dir
        if world is None:
            raise InstallError(
                lazy(
                    "Server {name} has no world folder configured, so the bot has no file access "
                    "to install the pack. If the bot runs where the world's files are, set "
                    "world_dir for this server (the folder with level.dat); if the server is "
                    "rented, set sftp_url (its SFTP login); otherwise copy the doom.schedule "
                    "folder into <world>/datapacks/ yourself and run /reload.",
                    name=repr(self.server.name),
                )
            )
        if not (world / "level.dat").is_file():
            raise InstallError(
                lazy(
                    "{world} is not a Minecraft world folder (it has no level.dat), so the pack "
                    "was not installed. Point world_dir at the world itself: the folder named by "
                    "level-name in server.properties, usually 'world'.",
                    world=world,
                )
            )
        return world

    async def exists(self, path: PurePath) -> bool:
        return await asyncio.to_thread(Path(path).exists)

    async def replace_tree(self, source: Path, target: PurePath) -> None:
        await asyncio.to_thread(_replace_tree, source, Path(target))


class PackInstaller:
    """Installs or upgrades the pack in one server's world (needs file access to the world:
    `files`, by default the local world_dir)."""

    def __init__(
        self,
        rcon: RconClient,
        server: ServerConfig,
        *,
        source: Path | None = None,
        verify_timeout: float = 20.0,
        poll_interval: float = 0.2,
        files: PackFiles | None = None,
    ) -> None:
        self.rcon = rcon
        self.server = server
        self.source = source
        self.verify_timeout = verify_timeout
        self.poll_interval = poll_interval
        self.files: PackFiles = files or LocalWorld(server)
        self.software: ServerSoftware | None = None  # detected on first install if not given

    async def install(self) -> InstallReport:
        """Copy, reload, enable if needed, verify. Raises InstallError or an RCON error when
        nothing could be done; returns a report (ok or not) once the files were copied."""
        world = await self.files.world()
        source = self.source or bundled_datapack()
        if not (source / "pack.mcmeta").is_file():
            raise InstallError(
                lazy("{path} is not a data pack (it has no pack.mcmeta).", path=source)
            )
        expected = pack_version_of(source)
        target = world / "datapacks" / PACK_DIR_NAME
        # Ask the server first: an unreachable server or a wrong password stops us before any
        # file changes, with the RCON client's own error.
        previous = await read_pack_version(self.rcon)
        existed = await self.files.exists(target)
        steps: list[str] = [_("version before: {version}", version=previous)]
        await self.files.replace_tree(source, target)
        steps.append(_("copied {source} to {target}", source=source, target=target))
        action: Literal["installed", "upgraded", "reinstalled"]
        if not existed:
            action = "installed"
        elif previous is not None and previous == expected:
            action = "reinstalled"
        else:
            action = "upgraded"

        if self.software is None or self.software.family == "unknown":
            self.software = await detect_software(self.rcon, self.server.log_path)
        steps.append(_("server software: {software}", software=self.software.describe()))
        reload = self.software.reload_command
        reply = strip_colours(await self.rcon.command(reload))
        steps.append(f"{reload}: {_answer(reply)}")
        if reload == "minecraft:reload" and reply.startswith("Unknown or incomplete command"):
            # Not a Bukkit server after all (detected from a stale log?): vanilla's own name.
            reply = strip_colours(await self.rcon.command("reload"))
            steps.append(f"reload: {_answer(reply)}")
        elif reload == "reload" and "Are you sure you wish to reload" in reply:
            # Paper up to 1.21.6 took it as Bukkit's reload and only asked: nothing reloaded.
            reply = strip_colours(await self.rcon.command("minecraft:reload"))
            steps.append(f"minecraft:reload: {_answer(reply)}")

        def report(
            ok: bool,
            problem: str | None,
            version: str | None,
            enabled: bool,
            enabled_by_us: bool,
        ) -> InstallReport:
            return InstallReport(
                server=self.server.name,
                pack_dir=target,
                action=action,
                previous_version=previous,
                expected_version=expected,
                version=version,
                enabled=enabled,
                enabled_by_us=enabled_by_us,
                ok=ok,
                problem=problem,
                steps=tuple(steps),
            )

        enabled, enabled_by_us = await self._ensure_enabled(steps)
        if not enabled:
            return report(
                False,
                _(
                    "the server does not list {pack} as enabled after reload; its log "
                    "(logs/latest.log) says why a pack fails to load",
                    pack=PACK_ID,
                ),
                None,
                False,
                enabled_by_us,
            )
        version = await self._await_version(expected)
        steps.append(_("version read back: {version}", version=version))
        if version is None:
            problem = _("the pack is enabled but never wrote its version (did its #load run?)")
            return report(False, problem, None, True, enabled_by_us)
        if expected is not None and version != expected:
            problem = _(
                "the server reports version {version}, but the copied files are {expected}",
                version=version,
                expected=expected,
            )
            return report(False, problem, version, True, enabled_by_us)
        log.info("doom.schedule %s %s on %s", version, action, self.server.name)
        return report(True, None, version, True, enabled_by_us)

    async def _ensure_enabled(self, steps: list[str]) -> tuple[bool, bool]:
        """Wait for the reload to list the pack; enable it if it stays only available."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.verify_timeout
        enabled_by_us = False
        # Give an asynchronous reload a moment before deciding the pack is disabled.
        settle = loop.time() + min(2.0, self.verify_timeout / 4)
        while True:
            listed = await self.rcon.command("datapack list enabled")
            if is_pack_enabled(listed):
                steps.append(_("datapack list enabled: listed"))
                return True, enabled_by_us
            now = loop.time()
            if not enabled_by_us and now >= settle:
                available = await self.rcon.command("datapack list available")
                if is_pack_enabled(available):
                    answer = await self.rcon.command(f'datapack enable "{PACK_ID}"')
                    steps.append(f"datapack enable: {answer.strip()}")
                    enabled_by_us = True
            if now >= deadline:
                steps.append(
                    _("datapack list enabled: not listed ({answer})", answer=listed.strip()[:200])
                )
                return False, enabled_by_us
            await asyncio.sleep(self.poll_interval)

    async def _await_version(self, expected: str | None) -> str | None:
        """Poll until the version is the expected one (the new #load ran) or time runs out."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.verify_timeout
        while True:
            version = await read_pack_version(self.rcon)
            if version is not None and (expected is None or version == expected):
                return version
            if loop.time() >= deadline:
                return version
            await asyncio.sleep(self.poll_interval)


@contextlib.asynccontextmanager
async def installer_for(rcon: RconClient, server: ServerConfig) -> AsyncIterator[PackInstaller]:
    """The installer of one configured server: its world_dir on this machine, else its files
    over SFTP (sftp_url), the SFTP connection closed afterwards."""
    if server.world_dir is not None or server.sftp_url is None:
        yield PackInstaller(rcon, server)
        return
    from bot.minecraft.sftp import SftpSession  # asyncssh only for a server that uses it
    from bot.minecraft.sftp_files import SftpWorld

    session = SftpSession(server)
    try:
        yield PackInstaller(rcon, server, files=SftpWorld(session))
    finally:
        await session.close()


def _replace_tree(source: Path, target: Path) -> None:
    """Put a copy of `source` at `target`, swapping folders so no half-copied pack is visible."""
    # Staging lives beside datapacks/, not in it: the server scans datapacks/ for packs.
    world = target.parent.parent
    staging = world / f".{PACK_DIR_NAME}.staging"
    old = world / f".{PACK_DIR_NAME}.old"
    for leftover in (staging, old):
        if leftover.exists():
            shutil.rmtree(leftover)
    shutil.copytree(source, staging, ignore=IGNORED)
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        os.replace(target, old)
    os.replace(staging, target)
    if old.exists():
        shutil.rmtree(old)
