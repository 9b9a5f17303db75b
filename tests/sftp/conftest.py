"""The SFTP tests' OpenSSH server, one per test module (starting it costs ~0.1 s, the keys more),
and a server config for the bot that reaches a folder through it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sftp.sshd import SSHD, Sshd

if not SSHD.exists():  # .ci/run installs Debian's openssh-server
    pytest.fail(f"{SSHD} is missing: apt-get install openssh-server", pytrace=False)


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    server = Sshd(tmp_path_factory.mktemp("sshd"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def sftp_settings(sshd: Sshd, root: Path, **extra: object) -> dict[str, object]:
    """The sftp_* settings of a server whose root folder is `root`, reached through `sshd`."""
    return {
        "sftp_url": f"sftp://{sshd.user}@127.0.0.1:{sshd.port}{root}",
        "sftp_key_file": sshd.client_key,
        "sftp_known_hosts": sshd.known_hosts,
        **extra,
    }
