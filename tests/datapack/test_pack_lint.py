"""Static checks of the pack: every line parses with the 1.20 and 1.21 command trees (macro lines
after substituting representative arguments), every function and tag it names exists, every
function starts with its header comment, and pack.mcmeta spans 1.21 to 1.21.11."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest
from mecha import DiagnosticError, Mecha

__all__: list[str] = []

PACK = Path(__file__).resolve().parents[2] / "datapack"
FUNCTIONS = PACK / "data" / "doom.schedule" / "function"
UUID = "0a1b2c3d-0000-4000-8000-00000000beef"

# Representative macro arguments by name (what the pack itself passes); `a` differs per file.
SAMPLES: dict[str, str] = {
    "run": "say hi",
    "time": "5",
    "unit": "t",
    "id": "job-1.a+b_c",
    "prefix": "job",
    "retry": "2",
    "retry_delay": "1",
    "interval": "20",
    "tick": "100",
    "hold": "600",
    "executor": UUID,
    "at": "in minecraft:overworld positioned 12345677.0 63.0 -5.0 positioned ~1.5 ~1.0 ~1.75 "
    "rotated 90.0 -10.0",
    "i": "3",
    "c": "1024",
    "due": "123456",
    "k": "10",
    "m": "2048",
    "m1": "2049",
    "h": "1024",
    "n": "7",
    "list": "queue",
    "from": "40",
    "count": "20",
    "u": UUID,
    "code": "bad_id",
    "message": "id must be 1 to 64 characters",
    "op": "cancel_one",
    "dimension": "minecraft:the_nether",
    "x": " by=1-2-3",
    **{f"i{a}": v for a, v in zip("xyz", ("12345677", "63", "-5"), strict=True)},
    **{f"n{a}": v for a, v in zip("xyz", ("-12345677", "-63", "5"), strict=True)},
    **{f"f{a}": v for a, v in zip("xyz", ("1.5", "1.0", "1.75"), strict=True)},
    "yaw": "90.0",
    "pitch": "-10.0",
    "type": "retry",
    "seq": "12",
    "late": "40",
    "t": "340",
    "key": "s12r3",
    "by": UUID,
    "online": "Steve_2",
    "why": "too_few",
    "players": "1",
    "then": "run",
    **{f"b{k}": str(k * 17) for k in range(16)},
}
PER_FILE = {
    "core/uuid/cached": {"a": "[I; 1, -2, 3, 2147483647]"},
    "core/uuid/join": {chr(ord("a") + k): "0f" for k in range(16)},
}
MACRO_ARG = re.compile(r"\$\(([A-Za-z0-9_]+)\)")
REFERENCE = re.compile(r"(?:^|\s)function (#?)([a-z0-9_.-]+):([a-z0-9_./-]+)")


@cache
def mecha(version: str) -> Mecha:
    return Mecha(version=version)


def function_files() -> list[Path]:
    return sorted(FUNCTIONS.rglob("*.mcfunction"))


def name_of(path: Path) -> str:
    return path.relative_to(FUNCTIONS).with_suffix("").as_posix()


def commands(path: Path) -> list[str]:
    """The command lines of a function, macro lines expanded with the sample arguments."""
    samples = {**SAMPLES, **PER_FILE.get(name_of(path), {})}
    lines = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("$"):
            line = MACRO_ARG.sub(lambda m: samples[m.group(1)], line[1:])
        lines.append(line)
    return lines


def test_the_pack_has_its_public_functions() -> None:
    names = {name_of(p) for p in function_files()}
    public = {
        "schedule", "schedule_with_retry", "schedule_every", "schedule_at", "submit", "call",
        "cancel_one", "cancel_all", "count", "clear", "pause", "resume", "get_time", "__help__",
        "api/schedule_dynamic", "page", "submit_staged", "release",
    }
    assert public <= names
    for name in public:
        tag = PACK / "data" / "doom.schedule" / "tags" / "function" / f"{name}.json"
        assert json.loads(tag.read_text())["values"] == [f"doom.schedule:{name}"]


@pytest.mark.parametrize("version", ["1.20", "1.21"])
@pytest.mark.parametrize("path", function_files(), ids=name_of)
def test_every_line_parses(path: Path, version: str) -> None:
    for line in commands(path):
        mecha(version).parse(line, using="command")


@pytest.mark.parametrize("path", function_files(), ids=name_of)
def test_every_function_starts_with_its_header(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# ") and len(lines[0]) > 20
    is_macro = any(line.startswith("$") for line in lines)
    header = " ".join(line for line in lines if line.startswith("#"))
    if is_macro:
        args = set(MACRO_ARG.findall("\n".join(lines)))
        assert all(arg in header for arg in args), "a macro function's header names its arguments"


def tag_exists(namespace: str, path: str) -> bool:
    return (PACK / "data" / namespace / "tags" / "function" / f"{path}.json").is_file()


def function_exists(namespace: str, path: str) -> bool:
    return (PACK / "data" / namespace / "function" / f"{path}.mcfunction").is_file()


@pytest.mark.parametrize("path", function_files(), ids=name_of)
def test_every_referenced_function_and_tag_exists(path: Path) -> None:
    for line in commands(path):
        for is_tag, namespace, name in REFERENCE.findall(line):
            exists = tag_exists(namespace, name) if is_tag else function_exists(namespace, name)
            assert exists, f"{path.name}: {line}"


def test_every_tag_names_existing_functions() -> None:
    tags = list(PACK.glob("data/*/tags/function/**/*.json"))
    assert len(tags) >= 18
    for tag in tags:
        for value in json.loads(tag.read_text())["values"]:
            namespace, name = value.lstrip("#").split(":")
            exists = (
                tag_exists(namespace, name)
                if value.startswith("#")
                else function_exists(namespace, name)
            )
            assert exists, f"{tag}: {value}"


def test_pack_mcmeta_spans_1_21_to_1_21_11() -> None:
    pack = json.loads((PACK / "pack.mcmeta").read_text())["pack"]
    assert pack["pack_format"] == 48
    assert pack["supported_formats"] == [48, 94]
    assert (pack["min_format"], pack["max_format"]) == (48, 94)


def test_macro_lines_reject_hostile_ids() -> None:
    """The id check relies on the objective parser refusing anything outside [A-Za-z0-9_.+-]."""
    line = (FUNCTIONS / "core/check/chars.mcfunction").read_text().splitlines()
    template = next(x for x in line if x.startswith("$"))[1:]
    for good in ["a", "Job-1.x+y_z", "9" * 64]:
        mecha("1.21").parse(template.replace("$(id)", good), using="command")
    for bad in ['a"b', "a b", "@a", "é", "a\\b", "a'b", "{x:1}", "a]b", "", "a#b", "a,b"]:
        with pytest.raises(DiagnosticError):
            mecha("1.21").parse(template.replace("$(id)", bad), using="command")
