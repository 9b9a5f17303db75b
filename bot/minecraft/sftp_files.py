"""A rented server's files over SFTP: what the bot reads from them (server.properties, the
Minecraft version in the log) and the pack's copy into the world (the installer's `PackFiles`).

The SFTP path is the server's root folder, laid out as vanilla and the hosting panels do:
`server.properties`, `logs/latest.log` and the world folder named by `level-name` (default
`world`), whose `datapacks/` gets the pack. The copy goes to a staging folder beside
`datapacks/` first and is renamed into place, so the server never sees half a pack.
"""

from __future__ import annotations

__all__ = ["SftpWorld", "read_facts"]

import asyncio
import logging
import shutil
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePath, PurePosixPath
from typing import TYPE_CHECKING, cast

from bot.i18n import lazy
from bot.minecraft.installer import IGNORED, PACK_DIR_NAME, InstallError
from bot.minecraft.server_files import (
    NO_PROPERTIES,
    ServerProperties,
    parse_properties,
    properties_from,
    version_in,
)
from bot.minecraft.sftp import FileError, SftpError, SftpSession, dropped, is_missing

if TYPE_CHECKING:
    from asyncssh import SFTPClient

log = logging.getLogger(__name__)

_HEAD_BYTES = 256 * 1024  # a log's first bytes, where its start line is
_ARCHIVES_LOOKED_AT = 5  # newest rolled logs read for a start line (after a daily roll)


@dataclass(frozen=True, slots=True)
class RemoteFacts:
    properties: ServerProperties
    version: str | None  # from the newest start line in the logs


async def _read(sftp: SFTPClient, path: PurePosixPath, size: int | None = None) -> bytes | None:
    """A file's bytes (its first `size`), None when it is not there."""
    try:
        async with sftp.open(str(path), "rb") as fh:
            return cast(bytes, await fh.read(-1 if size is None else size))
    except FileError as exc:
        if dropped(exc):
            raise
        if is_missing(exc):
            return None
        raise


async def read_properties(session: SftpSession) -> ServerProperties:
    """server.properties in the server's root folder (vanilla's defaults when it has none)."""

    async def op(sftp: SFTPClient) -> ServerProperties:
        path = session.path("server.properties")
        data = await _read(sftp, path)
        if data is None:
            return NO_PROPERTIES
        return properties_from(parse_properties(data.decode("utf-8", "replace")), path)

    return await session.call(op)


async def read_version(session: SftpSession) -> str | None:
    """The version in the newest start line: latest.log, then the newest rolled logs."""

    async def op(sftp: SFTPClient) -> str | None:
        logs = session.path("logs")
        head = await _read(sftp, logs / "latest.log", _HEAD_BYTES)
        found = version_in(head.decode("utf-8", "replace")) if head else None
        if found is not None:
            return found
        try:
            names = sorted((str(n) for n in await sftp.listdir(str(logs))), reverse=True)
        except FileError as exc:
            if dropped(exc):
                raise
            return None
        for name in [n for n in names if n.endswith(".log.gz")][:_ARCHIVES_LOOKED_AT]:
            packed = await _read(sftp, logs / name, _HEAD_BYTES)
            if not packed:
                continue
            try:
                text = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(packed, _HEAD_BYTES)
            except zlib.error:
                continue
            found = version_in(text.decode("utf-8", "replace"))
            if found is not None:
                return found
        return None

    return await session.call(op)


async def read_facts(session: SftpSession) -> RemoteFacts:
    """What the checker is built from; SftpError (a sentence) when the files cannot be read."""
    try:
        return RemoteFacts(await read_properties(session), await read_version(session))
    except FileError as exc:
        if dropped(exc):
            raise
        raise SftpError(
            lazy(
                "Cannot read the files of server {server} over SFTP ({url}): {error}",
                server=session.server,
                url=str(session.target),
                error=exc.reason,
            )
        ) from None


class SftpWorld:
    """The installer's files on the server's machine: <root>/<level-name>/datapacks/."""

    def __init__(self, session: SftpSession) -> None:
        self.session = session

    async def world(self) -> PurePath:
        properties = await read_properties(self.session)
        world = self.session.path(properties.level_name)

        async def op(sftp: SFTPClient) -> tuple[bool, bool]:
            return await sftp.isfile(str(world / "level.dat")), await sftp.exists(
                str(self.session.root)
            )

        has_level, has_root = await self.session.call(op)
        if not has_root:
            raise InstallError(
                lazy(
                    "The folder {root} does not exist over SFTP ({url}), so the pack was not "
                    "installed: the path in sftp_url must be the server's folder, where "
                    "server.properties is (on Pterodactyl and Pelican: /).",
                    root=str(self.session.root),
                    url=str(self.session.target),
                )
            )
        if not has_level:
            where = "server.properties" if properties.path is not None else "vanilla's default"
            raise InstallError(
                lazy(
                    "{world} over SFTP ({url}) is not a Minecraft world folder (it has no "
                    "level.dat), so the pack was not installed. Its name comes from level-name "
                    "({source}); the path in sftp_url must be the server's folder, where "
                    "server.properties is, and the server must have started once.",
                    world=str(world),
                    url=str(self.session.target),
                    source=where,
                )
            )
        return world

    async def exists(self, path: PurePath) -> bool:
        async def op(sftp: SFTPClient) -> bool:
            return bool(await sftp.exists(str(path)))

        return await self.session.call(op)

    async def replace_tree(self, source: Path, target: PurePath) -> None:
        world = target.parent.parent
        staging = world / f".{PACK_DIR_NAME}.staging"
        old = world / f".{PACK_DIR_NAME}.old"
        with tempfile.TemporaryDirectory(prefix="doom-pack-") as tmp:
            # the pack without the files that are not part of it, then up in one go
            local = Path(tmp) / PACK_DIR_NAME
            await asyncio.to_thread(shutil.copytree, source, local, ignore=IGNORED)

            async def op(sftp: SFTPClient) -> None:
                for leftover in (staging, old):
                    if await sftp.exists(str(leftover)):
                        await sftp.rmtree(str(leftover))
                await sftp.put(str(local), str(staging), recurse=True)
                await sftp.makedirs(str(target.parent), exist_ok=True)
                if await sftp.exists(str(target)):
                    await sftp.rename(str(target), str(old))
                await sftp.rename(str(staging), str(target))
                if await sftp.exists(str(old)):
                    await sftp.rmtree(str(old))

            try:
                await self.session.call(op)
            except FileError as exc:
                if dropped(exc):
                    raise
                raise InstallError(
                    lazy(
                        "Copying the pack to {target} over SFTP failed: {error}",
                        target=str(target),
                        error=exc.reason,
                    )
                ) from None
