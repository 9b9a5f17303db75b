"""Data packs: discovery in world/datapacks (folders and zips), pack.mcmeta checks, and loading
functions and function tags in the 1.21 layout (`function/`, `tags/function/`, singular).

A function that fails to parse is logged as vanilla logs it and is then missing.
"""

from __future__ import annotations

import json
import logging
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcsim.functions import Function, FunctionLoadError, build_function

__all__ = [
    "SERVER_PACK_FORMAT",
    "FunctionLibrary",
    "Pack",
    "PackError",
    "discover_packs",
    "pack_range",
]

log = logging.getLogger(__name__)

# mcsim speaks 1.21.11 (mecha's 1.21 command tree): data pack format 94.1.
SERVER_PACK_FORMAT: tuple[int, int] = (94, 1)
# From 1.21.9 (format 82) packs describe their range with min_format/max_format.
_MIN_FORMAT_ERA = 82


class PackError(Exception):
    """pack.mcmeta is missing or malformed: the pack is not offered at all."""


@dataclass(eq=False)
class Pack:
    id: str  # "file/<name>" as vanilla names world packs
    path: Path
    description: str
    min_format: tuple[int, int]
    max_format: tuple[int, int]
    _zip: zipfile.ZipFile | None = field(default=None, repr=False)

    @property
    def compatible(self) -> bool:
        return self.min_format <= SERVER_PACK_FORMAT <= self.max_format

    def files(self, prefix: str) -> Iterator[tuple[str, bytes]]:
        """(relative path, content) of every file under `prefix` (a '/'-separated folder)."""
        if self.path.is_dir():
            base = self.path / prefix
            if base.is_dir():
                for f in sorted(base.rglob("*")):
                    if f.is_file():
                        yield f.relative_to(self.path).as_posix(), f.read_bytes()
        else:
            with zipfile.ZipFile(self.path) as zf:
                for name in sorted(zf.namelist()):
                    if name.startswith(prefix + "/") and not name.endswith("/"):
                        yield name, zf.read(name)


def _format(value: Any, *, is_max: bool) -> tuple[int, int]:
    """A format given as N or [major, minor]; a bare max N covers every minor of N."""
    if isinstance(value, bool):
        raise PackError(f"Invalid pack format: {value!r}")
    if isinstance(value, int):
        return (value, 2**31 - 1) if is_max else (value, 0)
    if isinstance(value, float) and value.is_integer():
        return _format(int(value), is_max=is_max)
    if (
        isinstance(value, list)
        and 1 <= len(value) <= 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        if len(value) == 1:
            return _format(value[0], is_max=is_max)
        return (value[0], value[1])
    raise PackError(f"Invalid pack format: {value!r}")


def pack_range(meta: Any) -> tuple[tuple[int, int], tuple[int, int]]:
    """The (min, max) formats a pack.mcmeta declares, checked the way 1.21.9+ reads it.

    min_format/max_format win when present (both required). Otherwise pack_format, widened by
    supported_formats (N, [a, b] or {min_inclusive, max_inclusive}); such a legacy declaration
    may not reach the min_format era (82+), which needs min_format/max_format (inferred rule).
    """
    if not isinstance(meta, dict) or not isinstance(meta.get("pack"), dict):
        raise PackError("pack.mcmeta has no 'pack' section")
    pack = meta["pack"]
    if "description" not in pack:
        raise PackError("pack.mcmeta has no description")
    if "min_format" in pack or "max_format" in pack:
        if "min_format" not in pack or "max_format" not in pack:
            raise PackError("min_format and max_format must be given together")
        lo = _format(pack["min_format"], is_max=False)
        hi = _format(pack["max_format"], is_max=True)
        if lo > hi:
            raise PackError(f"min_format {lo} is above max_format {hi}")
        if "pack_format" in pack and lo[0] < _MIN_FORMAT_ERA:
            legacy = pack["pack_format"]
            if not isinstance(legacy, int) or not lo[0] <= legacy:
                raise PackError("pack_format must lie within min_format..max_format")
        elif lo[0] < _MIN_FORMAT_ERA:
            # Older servers read only pack_format: a range reaching below 82 must give it.
            raise PackError("pack_format is required when min_format is below 82")
        return lo, hi
    if "pack_format" not in pack:
        raise PackError("pack.mcmeta has no pack_format")
    fmt = pack["pack_format"]
    if not isinstance(fmt, int) or isinstance(fmt, bool):
        raise PackError(f"Invalid pack_format: {fmt!r}")
    lo_i, hi_i = fmt, fmt
    sup = pack.get("supported_formats")
    if sup is not None:
        if isinstance(sup, int) and not isinstance(sup, bool):
            lo_i, hi_i = sup, sup
        elif isinstance(sup, list) and len(sup) == 2 and all(isinstance(v, int) for v in sup):
            lo_i, hi_i = sup[0], sup[1]
        elif isinstance(sup, dict):
            lo_i, hi_i = int(sup.get("min_inclusive", fmt)), int(sup.get("max_inclusive", fmt))
        else:
            raise PackError(f"Invalid supported_formats: {sup!r}")
        if not lo_i <= fmt <= hi_i:
            raise PackError(f"pack_format {fmt} is outside supported_formats {sup!r}")
    if hi_i >= _MIN_FORMAT_ERA:
        raise PackError("a pack for format 82 or later must declare min_format and max_format")
    return (lo_i, 0), (hi_i, 2**31 - 1)


def _read_meta(path: Path) -> Any:
    if path.is_dir():
        meta_file = path / "pack.mcmeta"
        if not meta_file.is_file():
            raise PackError("Missing pack.mcmeta")
        raw = meta_file.read_bytes()
    else:
        try:
            with zipfile.ZipFile(path) as zf:
                raw = zf.read("pack.mcmeta")
        except (KeyError, zipfile.BadZipFile) as e:
            raise PackError(f"Missing pack.mcmeta ({e})") from e
    try:
        return json.loads(raw.decode("utf-8"))
    except ValueError as e:
        raise PackError(f"pack.mcmeta is not valid JSON: {e}") from e


def discover_packs(datapacks: Path, server_log: Any) -> dict[str, Pack]:
    """Every well-formed pack in datapacks/, by id, in name order (folders and .zip files)."""
    found: dict[str, Pack] = {}
    if not datapacks.is_dir():
        return found
    for path in sorted(datapacks.iterdir()):
        if not (path.is_dir() or path.suffix == ".zip"):
            continue
        pack_id = f"file/{path.name}"
        try:
            meta = _read_meta(path)
            lo, hi = pack_range(meta)
        except PackError as e:
            server_log.warn(f"Failed to load pack {pack_id}: {e}", thread="Server thread")
            continue
        desc = meta["pack"].get("description", "")
        found[pack_id] = Pack(
            pack_id, path, desc if isinstance(desc, str) else json.dumps(desc), lo, hi
        )
    return found


@dataclass
class FunctionLibrary:
    """Functions and function tags of the enabled packs, as the last reload left them."""

    functions: dict[str, Function] = field(default_factory=dict)
    tags: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def load(
        cls, packs: list[Pack], compile_line: Callable[[str], Any], server_log: Any
    ) -> FunctionLibrary:
        lib = cls()
        texts: dict[str, str] = {}
        raw_tags: dict[str, list[Any]] = {}
        for pack in packs:
            for name, content in pack.files("data"):
                parts = name.split("/")
                if len(parts) < 4:
                    continue
                ns = parts[1]
                if parts[2] == "function" and name.endswith(".mcfunction"):
                    path = "/".join(parts[3:])[: -len(".mcfunction")]
                    texts[f"{ns}:{path}"] = content.decode("utf-8", errors="replace")
                elif parts[2:4] == ["tags", "function"] and name.endswith(".json"):
                    path = "/".join(parts[4:])[: -len(".json")]
                    _merge_tag(raw_tags, f"{ns}:{path}", content, server_log)
        for fid, text in texts.items():
            try:
                lib.functions[fid] = build_function(fid, text, compile_line)
            except FunctionLoadError as e:
                server_log.error(
                    f"Failed to load function {fid}\njava.util.concurrent.CompletionException: "
                    f"java.lang.IllegalArgumentException: {e}",
                    thread="Worker-Main-1",
                )
        for tag_id in raw_tags:
            resolved = _resolve_tag(tag_id, raw_tags, lib.functions, set())
            if resolved is None:
                server_log.error(
                    f"Couldn't load tag {tag_id} as it is missing following references",
                    thread="Worker-Main-1",
                )
            else:
                lib.tags[tag_id] = resolved
        return lib


def _merge_tag(raw: dict[str, list[Any]], tag_id: str, content: bytes, server_log: Any) -> None:
    try:
        data = json.loads(content.decode("utf-8"))
        values = data["values"]
        if not isinstance(values, list):
            raise ValueError("values is not a list")
    except (ValueError, KeyError, TypeError) as e:
        server_log.error(f"Couldn't read tag list {tag_id}: {e}", thread="Worker-Main-1")
        return
    if data.get("replace", False):
        raw[tag_id] = []
    raw.setdefault(tag_id, []).extend(values)


def _resolve_tag(
    tag_id: str, raw: dict[str, list[Any]], functions: dict[str, Function], seen: set[str]
) -> list[str] | None:
    """The tag's functions in order, without repeats; None when a required entry is missing."""
    out: dict[str, None] = {}
    seen = seen | {tag_id}
    for entry in raw.get(tag_id, []):
        required = True
        if isinstance(entry, dict):
            required = bool(entry.get("required", True))
            entry = entry.get("id", "")
        ref = str(entry)
        if ref.startswith("#"):
            inner = _normalize(ref[1:])
            sub = (
                None
                if inner in seen or inner not in raw
                else _resolve_tag(inner, raw, functions, seen)
            )
            if sub is None:
                if required:
                    return None
                continue
            for f in sub:
                out[f] = None
        else:
            fid = _normalize(ref)
            if fid in functions:
                out[fid] = None
            elif required:
                return None
    return list(out)


def _normalize(ref: str) -> str:
    return ref if ":" in ref else f"minecraft:{ref}"
