"""What Discord would attach to a message, kept by the console as files: a terminal cannot show
an attachment, so the console writes it to a folder of the data dir and names its path (the
plan file of `/plan export`, a command too long for a message in full...)."""

from __future__ import annotations

__all__ = ["FILES_FOLDER", "keep"]

from datetime import datetime
from pathlib import Path

FILES_FOLDER = "console"  # in the data dir
_TRIES = 1000  # files of one name in one second before giving up


def keep(folder: Path, name: str, data: bytes, now: datetime) -> Path:
    """Write `data` in `folder` under `name` with the time it came (`plan-main-20261201-120000
    .yaml`), never over an earlier file (`-2`, `-3`... within a second); the path written.
    OSError when the folder cannot be made or written."""
    folder.mkdir(parents=True, exist_ok=True)
    plain = Path(name).name.lstrip(".") or "attachment"  # never a path out of the folder
    stem, dot, suffix = plain.rpartition(".")
    if not dot or not stem:
        stem, suffix = plain, ""
    else:
        suffix = f".{suffix}"
    stamp = now.strftime("%Y%m%d-%H%M%S")
    for n in range(1, _TRIES + 1):
        path = folder / f"{stem}-{stamp}{'' if n == 1 else f'-{n}'}{suffix}"
        try:
            with path.open("xb") as f:  # exclusive: an earlier file is never overwritten
                f.write(data)
        except FileExistsError:
            continue
        return path
    raise FileExistsError(f"{folder / plain}: {_TRIES} files of this name in one second")
