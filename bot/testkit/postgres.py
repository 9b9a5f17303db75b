"""A real PostgreSQL server for tests and benchmarks: Debian's binaries, a cluster made in a
temporary folder, listening on 127.0.0.1 only, stopped and removed at the end.

Run as root (CI, containers), the cluster belongs to the ``postgres`` user, as PostgreSQL refuses
to run as root. Durability is off (``fsync=off``): a test's database lives as long as the test,
and the tests kill bot processes and connections, not the database's disk.

    with PostgresServer() as pg:
        url = pg.new_database()     # postgresql://postgres@127.0.0.1:PORT/t1
"""

from __future__ import annotations

__all__ = ["PostgresServer", "postgres_bin"]

import contextlib
import itertools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any


def postgres_bin() -> Path:
    """The folder of PostgreSQL's server programs: Debian keeps them out of PATH, in
    /usr/lib/postgresql/<major>/bin."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/postgres"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if found:
        return found[-1].parent
    on_path = shutil.which("postgres")
    if on_path is None:
        raise RuntimeError("PostgreSQL is not installed: apt-get install postgresql")
    return Path(on_path).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """One PostgreSQL cluster; :meth:`start` / :meth:`stop` (a context manager too)."""

    def __init__(self, *, port: int | None = None) -> None:
        self.bin = postgres_bin()
        self.port = port or _free_port()
        self.root = Path(tempfile.mkdtemp(prefix="doom-pg-"))
        self.data = self.root / "data"
        self.process: subprocess.Popen[bytes] | None = None
        self._as: dict[str, Any] = {}
        if os.geteuid() == 0:
            self._as = {"user": "postgres", "group": "postgres"}
            shutil.chown(self.root, "postgres", "postgres")
        self._names = itertools.count(1)

    @property
    def url(self) -> str:
        return self.url_of("postgres")

    def url_of(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def start(self) -> PostgresServer:
        if not self.data.exists():
            subprocess.run(
                [
                    str(self.bin / "initdb"),
                    "-D",
                    str(self.data),
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "-E",
                    "UTF8",
                    "--locale=C",
                    "--no-sync",
                ],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                **self._as,
            )
        self.process = subprocess.Popen(
            [
                str(self.bin / "postgres"),
                "-D",
                str(self.data),
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-k",
                str(self.root),
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "shared_buffers=16MB",
                "-c",
                "max_connections=200",
            ],
            stdout=subprocess.DEVNULL,
            stderr=open(self.root / "server.log", "ab"),  # noqa: SIM115 (the child owns it)
            **self._as,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"PostgreSQL did not start: {self.log_tail()}")
            if self.psql("SELECT 1", check=False).returncode == 0:
                return self
            time.sleep(0.1)
        raise RuntimeError(f"PostgreSQL did not answer within 30 s: {self.log_tail()}")

    def log_tail(self) -> str:
        with contextlib.suppress(OSError):
            return (self.root / "server.log").read_text(errors="replace")[-2000:]
        return ""

    def psql(
        self, sql: str, *, database: str = "postgres", check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        psql = shutil.which("psql") or str(self.bin / "psql")
        return subprocess.run(
            [
                psql,
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-U",
                "postgres",
                "-d",
                database,
                "-v",
                "ON_ERROR_STOP=1",
                "-qAt",
                "-c",
                sql,
            ],
            check=check,
            capture_output=True,
            text=True,
            timeout=30,
        )

    def new_database(self, *, template: str | None = None) -> str:
        """A new empty database (or a copy of `template`); its URL."""
        name = f"t{next(self._names)}"
        copy = f" TEMPLATE {template}" if template else ""
        self.psql(f"CREATE DATABASE {name}{copy}")
        return self.url_of(name)

    def terminate_backends(self, database: str, *, application_name: str | None = None) -> int:
        """Kill every session on `database` (``pg_terminate_backend``), as an operator or a
        network fault would; the number killed."""
        where = f"datname = '{database}' AND pid <> pg_backend_pid()"
        if application_name is not None:
            where += f" AND application_name = '{application_name}'"
        out = self.psql(
            f"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE {where}"
        )
        return int(out.stdout.strip() or 0)

    def pause(self) -> None:
        """SIGSTOP the postmaster and its children: the database stops answering."""
        self._signal_all(signal.SIGSTOP)

    def resume(self) -> None:
        self._signal_all(signal.SIGCONT)

    def _signal_all(self, sig: signal.Signals) -> None:
        assert self.process is not None
        pids = [self.process.pid]
        out = subprocess.run(
            ["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True, check=False
        )
        pids += [int(p) for p in out.stdout.split()]
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)

    def stop(self, *, immediate: bool = False) -> None:
        """Shut the server down (fast: sessions ended, a checkpoint); `immediate`: at once, as
        a crash does, recovered at the next :meth:`start` (same folder, same port)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT if immediate else signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self.process = None

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.remove()
