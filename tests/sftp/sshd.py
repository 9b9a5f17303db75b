"""A real OpenSSH server for the SFTP tests: Debian's /usr/sbin/sshd, started on 127.0.0.1 on a
free port with its own config, its own freshly made host key, an authorized_keys of its own
for a client key made here, and the current user as the test user (root in CI, which the config
lets in by key only). Nothing of the machine's own SSH setup or accounts is read or changed."""

from __future__ import annotations

import contextlib
import getpass
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

__all__ = ["SSHD", "Sshd", "free_port", "keygen"]

SSHD = Path("/usr/sbin/sshd")
START_LIMIT = 15.0  # seconds sshd may take to accept


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def keygen(path: Path) -> Path:
    """A new ed25519 key pair without passphrase at `path` (and `path`.pub)."""
    path.unlink(missing_ok=True)
    path.with_name(path.name + ".pub").unlink(missing_ok=True)
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "doom-test", "-f", str(path)],
        check=True,
        timeout=30,
    )
    return path


class Sshd:
    def __init__(self, home: Path) -> None:
        self.home = home
        home.mkdir(parents=True, exist_ok=True)
        self.user = getpass.getuser()
        self.host_key = keygen(home / "host_ed25519")
        self.client_key = keygen(home / "client_ed25519")
        (home / "authorized_keys").write_text(
            (home / "client_ed25519.pub").read_text(), encoding="utf-8"
        )
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = home / "sshd.log"

    @property
    def known_hosts(self) -> Path:
        """A known_hosts naming this server's current host key, as ssh-keyscan writes it."""
        path = self.home / "known_hosts"
        key = (self.home / "host_ed25519.pub").read_text().split()
        path.write_text(f"[127.0.0.1]:{self.port} {key[0]} {key[1]}\n", encoding="utf-8")
        return path

    def fingerprint(self) -> str:
        """The host key's SHA256 fingerprint, as ssh-keygen -l says it."""
        out = subprocess.run(
            ["ssh-keygen", "-l", "-E", "sha256", "-f", str(self.home / "host_ed25519.pub")],
            check=True,
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout
        return out.split()[1]

    def new_host_key(self) -> None:
        """Another host key (a reinstalled host, or someone in between); restart to use it."""
        keygen(self.home / "host_ed25519")

    def _config(self, password: bool) -> Path:
        path = self.home / "sshd_config"
        root = "yes" if password else "prohibit-password"
        path.write_text(
            f"Port {self.port}\n"
            "ListenAddress 127.0.0.1\n"
            f"HostKey {self.host_key}\n"
            f"PidFile {self.home / 'sshd.pid'}\n"
            f"AuthorizedKeysFile {self.home / 'authorized_keys'}\n"
            f"PermitRootLogin {root}\n"
            f"AllowUsers {self.user}\n"
            "UsePAM no\n"
            "StrictModes no\n"
            f"PasswordAuthentication {'yes' if password else 'no'}\n"
            "KbdInteractiveAuthentication no\n"
            "Subsystem sftp internal-sftp\n"
            "LogLevel VERBOSE\n",
            encoding="utf-8",
        )
        return path

    def start(self, *, password: bool = False) -> None:
        # the privilege separation folder Debian's package makes at boot (absent in containers)
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
        config = self._config(password)
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [str(SSHD), "-D", "-e", "-f", str(config)], stdout=log, stderr=log
            )
        deadline = time.monotonic() + START_LIMIT
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"sshd ended at start:\n{self.log.read_text()[-3000:]}")
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock,
            ):
                if sock.recv(8).startswith(b"SSH-"):
                    return
            if time.monotonic() > deadline:
                raise RuntimeError(f"sshd did not accept:\n{self.log.read_text()[-3000:]}")
            time.sleep(0.05)

    def sessions(self) -> list[int]:
        """The pids of the processes sshd started for connections: its children (one per
        connection) and theirs (the session running internal-sftp, which holds the socket too)."""
        if self.proc is None:
            return []
        found: list[int] = []
        todo = [self.proc.pid]
        while todo:
            pid = todo.pop()
            try:
                kids = [
                    int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
                ]
            except OSError:
                kids = []
            found += kids
            todo += kids
        return found

    def cut(self) -> int:
        """Kill every connection's process (the listener stays): each client sees a drop."""
        pids = self.sessions()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return len(pids)

    def stop(self) -> None:
        self.cut()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None
