"""The SFTP session against a real OpenSSH server: it logs in by key and reads the server's
files; a host whose key is not in known_hosts, or whose key changed, is refused with the
fingerprint it offered and what to do; a refused login says which setting to check."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ServerConfig
from bot.minecraft.sftp import SftpError, SftpSession
from tests.sftp.conftest import sftp_settings
from tests.sftp.sshd import Sshd, keygen


def config(sshd: Sshd, root: Path, **extra: object) -> ServerConfig:
    return ServerConfig(name="rented", rcon_password="pw", **sftp_settings(sshd, root, **extra))  # type: ignore[arg-type]


async def read(session: SftpSession, path: str) -> bytes:
    async def op(sftp):  # type: ignore[no-untyped-def]
        async with sftp.open(str(session.path(path)), "rb") as fh:
            return await fh.read()

    return await session.call(op)


async def test_logs_in_by_key_and_reads_under_the_root(sshd: Sshd, tmp_path: Path) -> None:
    (tmp_path / "server.properties").write_text("level-name=world\n")
    session = SftpSession(config(sshd, tmp_path))
    try:
        assert await read(session, "server.properties") == b"level-name=world\n"
        assert session.state.connected and session.state.last_error is None
    finally:
        await session.close()


async def test_an_unknown_host_is_refused_naming_its_fingerprint(
    sshd: Sshd, tmp_path: Path
) -> None:
    known = tmp_path / "known_hosts"
    known.write_text("# nothing known yet\n")
    session = SftpSession(config(sshd, tmp_path, sftp_known_hosts=known))
    with pytest.raises(SftpError) as refused:
        await read(session, "server.properties")
    text = str(refused.value)
    assert sshd.fingerprint() in text, text
    assert f"ssh-keyscan -p {sshd.port} 127.0.0.1 >> {known}" in text
    assert "not in" in text
    assert session.connects == 0 and not session.state.connected
    assert session.state.last_error == text  # what /status says
    await session.close()


async def test_a_changed_host_key_is_refused_naming_the_new_fingerprint(
    sshd: Sshd, tmp_path: Path
) -> None:
    other = keygen(tmp_path / "other")
    kind, key = (tmp_path / "other.pub").read_text().split()[:2]
    known = tmp_path / "known_hosts"
    known.write_text(f"[127.0.0.1]:{sshd.port} {kind} {key}\n")
    del other
    session = SftpSession(config(sshd, tmp_path, sftp_known_hosts=known))
    with pytest.raises(SftpError) as refused:
        await read(session, "x")
    text = str(refused.value)
    assert sshd.fingerprint() in text and "NOT the one" in text, text
    assert session.connects == 0
    await session.close()


async def test_a_refused_login_names_the_setting_to_check(sshd: Sshd, tmp_path: Path) -> None:
    stranger = keygen(tmp_path / "stranger")
    session = SftpSession(config(sshd, tmp_path, sftp_key_file=stranger))
    with pytest.raises(SftpError, match=r"refused the login of .*sftp_key_file"):
        await read(session, "x")
    await session.close()


async def test_a_missing_key_file_is_said_not_raised(sshd: Sshd, tmp_path: Path) -> None:
    session = SftpSession(config(sshd, tmp_path, sftp_key_file=tmp_path / "nope"))
    with pytest.raises(SftpError, match="Cannot read sftp_key_file"):
        await read(session, "x")
    await session.close()
