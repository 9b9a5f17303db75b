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

from mcsim.executor import keep_on_disk
from mcsim.functions import Function, FunctionLoadError, build_function, split_function_lines

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
# PackVersion.getLastOldPackVersion(SERVER_DATA): from 82 (1.21.9) packs give min/max_format.
_LAST_OLD_FORMAT = 81


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

    def files(
        self, prefix: str, wanted: Callable[[str], bool] | None = None
    ) -> Iterator[tuple[str, bytes]]:
        """(relative path, content) of every file under `prefix` (a '/'-separated folder), or
        of those whose relative path `wanted` accepts: the others are not read (a reload reads
        the pack once for its functions and once for its dimensions)."""
        if self.path.is_dir():
            base = self.path / prefix
            if base.is_dir():
                for f in sorted(base.rglob("*")):
                    name = f.relative_to(self.path).as_posix()
                    if (wanted is None or wanted(name)) and f.is_file():
                        yield name, f.read_bytes()
        else:
            with zipfile.ZipFile(self.path) as zf:
                for name in sorted(zf.namelist()):
                    inside = name.startswith(prefix + "/") and not name.endswith("/")
                    if inside and (wanted is None or wanted(name)):
                        yield name, zf.read(name)


def _format(value: Any, *, is_max: bool) -> tuple[int, int]:
    """PackVersion's codec: N or [major, minor, ...] of non-negative ints; a bare N is minor 0
    for min_format and every minor (Integer.MAX_VALUE) for max_format."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if (
        isinstance(value, list)
        and 1 <= len(value) <= 256
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
    ):
        if len(value) == 1:
            return (value[0], 2**31 - 1) if is_max else (value[0], 0)
        return (value[0], value[1])
    raise PackError(f"Invalid pack format: {value!r}")


def _int_range(value: Any) -> tuple[int, int]:
    """Range.createCodec(Codec.INT): N, [min, max] or {min_inclusive, max_inclusive}."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value, value
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return value[0], value[1]
    if isinstance(value, dict) and {"min_inclusive", "max_inclusive"} <= set(value):
        lo, hi = value["min_inclusive"], value["max_inclusive"]
        if isinstance(lo, int) and isinstance(hi, int):
            return lo, hi
    raise PackError(f"Invalid supported_formats: {value!r}")


def _main_format(fmt: int, lo: int, hi: int) -> None:
    """PackVersion.Format.validateMainFormat."""
    if fmt < lo or fmt > hi:
        raise PackError(
            f"Pack declared support for versions {lo} to {hi} but declared main format is {fmt}"
        )
    if fmt < 15:
        raise PackError(
            "Multi-version packs cannot support minimum version of less than 15, since this "
            "will leave versions in range unable to load pack."
        )


def pack_range(meta: Any) -> tuple[tuple[int, int], tuple[int, int]]:
    """The (min, max) formats a pack.mcmeta declares, or PackError with the server's message.

    As 1.21.11 reads a data pack's `pack` section (resource/PackVersion.java, Format.validate
    with pack=true, supportsOld=false; the last old data format is 81): min_format/max_format
    together; a range starting at 82+ must not give supported_formats, and its pack_format (if
    any) lies in the range; a range starting at 81 or lower also needs supported_formats (same
    minimum, maximum max_format or 81) and pack_format. Without min/max: supported_formats up
    to 81 with pack_format in it, or a lone pack_format up to 81.
    """
    if not isinstance(meta, dict) or not isinstance(meta.get("pack"), dict):
        raise PackError("pack.mcmeta has no 'pack' section")
    pack = meta["pack"]
    if "description" not in pack:
        raise PackError("pack.mcmeta has no description")
    fmt = pack.get("pack_format")
    if fmt is not None and (not isinstance(fmt, int) or isinstance(fmt, bool)):
        raise PackError(f"Invalid pack_format: {fmt!r}")
    sup = _int_range(pack["supported_formats"]) if "supported_formats" in pack else None
    if ("min_format" in pack) != ("max_format" in pack):
        raise PackError("Pack missing field, must declare both min_format and max_format")
    if "min_format" in pack:
        lo = _format(pack["min_format"], is_max=False)
        hi = _format(pack["max_format"], is_max=True)
        if lo > hi:
            raise PackError(f"Pack min_format ({lo}) is greater than max_format ({hi})")
        if lo[0] > _LAST_OLD_FORMAT:
            if sup is not None:
                raise PackError(
                    f"Pack key supported_formats is deprecated starting from pack format "
                    f"{_LAST_OLD_FORMAT + 1}. Remove supported_formats from your pack.mcmeta."
                )
            if fmt is not None:
                _main_format(fmt, lo[0], hi[0])
            return lo, hi
        if sup is None:
            raise PackError(
                f"Pack declares support for format {lo[0]}, but game versions supporting "
                f"formats 17 to {_LAST_OLD_FORMAT} require a supported_formats field"
            )
        if sup[0] != lo[0]:
            raise PackError(
                "Pack version declaration mismatch between supported_formats and min_format"
            )
        if sup[1] not in (hi[0], _LAST_OLD_FORMAT):
            raise PackError(
                "Pack version declaration mismatch between supported_formats and max_format"
            )
        if fmt is None:
            raise PackError(
                f"Pack declares support for formats up to {_LAST_OLD_FORMAT}, but game versions "
                f"supporting formats 17 to {_LAST_OLD_FORMAT} require a pack_format field"
            )
        _main_format(fmt, lo[0], hi[0])
        return lo, hi
    if sup is not None:
        if sup[1] > _LAST_OLD_FORMAT:
            raise PackError(
                f"Pack declares support for version newer than {_LAST_OLD_FORMAT}, but is "
                "missing mandatory fields min_format and max_format"
            )
        if fmt is None:
            raise PackError(
                f"Pack declares support for formats up to {_LAST_OLD_FORMAT}, but game versions "
                f"supporting formats 17 to {_LAST_OLD_FORMAT} require a pack_format field"
            )
        _main_format(fmt, sup[0], sup[1])
        return (sup[0], 0), (sup[1], 0)
    if fmt is not None:
        if fmt > _LAST_OLD_FORMAT:
            raise PackError(
                f"Pack declares support for version newer than {_LAST_OLD_FORMAT}, but is "
                "missing mandatory fields min_format and max_format"
            )
        return (fmt, 0), (fmt, 0)
    raise PackError("Pack could not be parsed, missing format version information")


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
            for name, content in pack.files("data", _function_or_tag):
                parts = name.split("/")
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
        # the next process's first start reads these lines instead of parsing them again
        keep_on_disk(line for text in texts.values() for _n, line in split_function_lines(text))
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


def _function_or_tag(name: str) -> bool:
    parts = name.split("/")
    return len(parts) >= 4 and (parts[2] == "function" or parts[2:4] == ["tags", "function"])


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
