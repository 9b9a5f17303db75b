"""Parsed function lines kept on disk between processes.

Parsing the pack's lines with mecha is most of a process's first server start (~0.6 s of ~0.7 s):
the process-wide cache (mcsim.executor.parse_line) saves it for every later start in that
process, and this file saves it for the first start of the next one (the bot's embedded mode,
each mcsim process a test starts). Only lines read from function files are kept, never the
commands sent over RCON, so the file holds the packs' lines and stays small.

The file is a pickle of {line: (AST, gates)} named for what the parse depends on (Python's,
mecha's and nbtlib's versions, the command tree's version, the source of the modules that parse
and gate a line), so a change to any of them starts a new file instead of reading a stale one.
It lives in ``$MCSIM_PARSE_CACHE`` (a folder; ``off`` keeps nothing), else
``$XDG_CACHE_HOME/mcsim`` or ``~/.cache/mcsim``, readable by its owner only; a file that cannot
be read is ignored, and one that cannot be written is left.
"""

from __future__ import annotations

__all__ = ["ENV", "MAX_LINES", "folder", "load", "save"]

import hashlib
import logging
import os
import pickle
import sys
import tempfile
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

ENV = "MCSIM_PARSE_CACHE"
MAX_LINES = 20_000  # a file past this is not grown (macro expansions are never kept)
_SOURCES = ("executor.py", "permissions.py")  # the modules whose code a parse's result reflects


def folder() -> Path | None:
    """Where the file lives, or None when kept nowhere (``MCSIM_PARSE_CACHE=off``)."""
    value = os.environ.get(ENV, "")
    if value == "off":
        return None
    if value:
        return Path(value)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mcsim"


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


def _file(tree_version: str) -> Path | None:
    where = folder()
    if where is None:
        return None
    digest = hashlib.sha256()
    for part in (sys.version, _version("mecha"), _version("nbtlib"), tree_version):
        digest.update(part.encode() + b"\0")
    here = Path(__file__).parent
    for name in _SOURCES:
        digest.update((here / name).read_bytes())
    return where / f"parsed-{digest.hexdigest()[:20]}.pickle"


def load(tree_version: str) -> dict[str, Any]:
    """The lines kept for this parser, or nothing when there is no file or it is unreadable."""
    path = _file(tree_version)
    if path is None or not path.is_file():
        return {}
    try:
        with path.open("rb") as f:
            found = pickle.load(f)
    except Exception as e:  # damaged, or written by code that no longer loads: parse again
        log.debug("parse cache %s not read: %s", path, e)
        return {}
    return found if isinstance(found, dict) else {}


def save(tree_version: str, lines: Mapping[str, Any]) -> None:
    """Write the lines (atomically: a reader sees the old file or the new one, whole)."""
    path = _file(tree_version)
    if path is None or len(lines) > MAX_LINES:
        return
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".parsed-")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump(dict(lines), f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as e:  # a read-only home, a full disk: the next process parses again
        log.debug("parse cache %s not written: %s", path, e)
