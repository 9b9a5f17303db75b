"""One process per data folder: `<data_dir>/bot.lock` (an flock holding the holder's pid)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bot.datadir_lock import LOCK_FILE, DataDirBusy, DataDirLock, busy_message
from tests.bot.test_cli import REPO


def test_a_second_holder_is_refused_naming_the_first_and_free_after_release(
    tmp_path: Path,
) -> None:
    first = DataDirLock.acquire(tmp_path, "console")
    assert (tmp_path / LOCK_FILE).read_text() == f"{os.getpid()} console\n"
    with pytest.raises(DataDirBusy) as caught:
        DataDirLock.acquire(tmp_path, "export")
    assert (caught.value.holder.pid, caught.value.holder.command) == (os.getpid(), "console")
    text = busy_message("export", caught.value)
    assert f"A bot (pid {os.getpid()}) is running on the data folder {tmp_path}" in text
    assert "/plan export" in text
    # the refused one did not cut the holder's line
    assert (tmp_path / LOCK_FILE).read_text() == f"{os.getpid()} console\n"
    first.release()
    assert (tmp_path / LOCK_FILE).read_text() == ""
    with DataDirLock.acquire(tmp_path, "import"):
        with pytest.raises(DataDirBusy) as again:
            DataDirLock.acquire(tmp_path, "console")
        assert "Wait for it to finish" in busy_message("console", again.value)


def test_a_lock_file_left_by_a_sigkilled_holder_blocks_nobody(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import sys, time
                from pathlib import Path
                from bot.datadir_lock import DataDirLock
                lock = DataDirLock.acquire(Path({str(tmp_path)!r}), "console")
                print("held", flush=True)
                time.sleep(60)
                """
            ),
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(DataDirBusy) as caught:
            DataDirLock.acquire(tmp_path, "console")
        assert caught.value.holder.pid == holder.pid
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(20)
    # the dead process's line is still in the file; the OS dropped its lock
    assert (tmp_path / LOCK_FILE).read_text() == f"{holder.pid} console\n"
    with DataDirLock.acquire(tmp_path, "console"):
        assert (tmp_path / LOCK_FILE).read_text() == f"{os.getpid()} console\n"
