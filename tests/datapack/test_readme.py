"""datapack/README.md as a server admin reads it: every call form has an example that runs as
written, and every code and message the pack can write to doom.schedule:out is in its table."""

from __future__ import annotations

import re

from tests.datapack.dpharness import PACK_DIR, Pack

__all__: list[str] = []

README = (PACK_DIR / "README.md").read_text(encoding="utf-8")
FUNCTIONS = PACK_DIR / "data" / "doom.schedule" / "function"
PUBLIC = {
    "schedule", "schedule_with_retry", "schedule_every", "schedule_at", "api/schedule_dynamic",
    "cancel_one", "cancel_all", "count", "clear", "pause", "resume", "get_time", "page", "__help__",
}
OUTCOME = re.compile(r'code:"([a-z_]+)",message:"([^"]*)"')


def code_blocks(section: str) -> list[list[str]]:
    """The fenced blocks of a README section, as lists of lines."""
    start = README.index(f"\n## {section}")
    end = README.index("\n## ", start + 1)
    blocks = re.findall(r"```\n(.*?)```", README[start:end], re.S)
    return [block.strip().splitlines() for block in blocks]


def test_every_public_call_form_has_a_quick_start_example() -> None:
    examples = code_blocks("Quick start")[0]
    shown = {
        m.group(1) for m in map(re.compile(r"function doom\.schedule:(\S+)").match, examples) if m
    }
    assert shown >= PUBLIC


def test_the_quick_start_examples_run_as_written(pack: Pack) -> None:
    calls, uses = code_blocks("Quick start")[:2]
    for line in calls:
        result = pack.run(line)
        assert result.success, (line, result.feedback, pack.out())
    pack.run("scoreboard objectives add myobj dummy")
    pack.call("schedule_every", {"run": "say x", "interval": 5, "unit": "s", "id": "announce"})
    pack.call("schedule", {"run": "say x", "time": 5, "unit": "s", "id": "hello"})
    for line in uses:
        assert pack.run(line).success, line
    assert pack.server.score("#tasks", "myobj") == 1
    assert pack.server.score("#ok", "myobj") == 1
    assert pack.server.score("#now", "myobj") == pack.time


def test_every_code_and_message_the_pack_writes_is_in_the_readme() -> None:
    written = {
        (code, message)
        for path in FUNCTIONS.rglob("*.mcfunction")
        for code, message in OUTCOME.findall(path.read_text(encoding="utf-8"))
    }
    assert len(written) > 20
    table = README[README.index("Codes and their messages") :]
    table = table[: table.index("\n\n", table.index("|"))]
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `([a-z_]+)` \|.*$", table, re.M)}
    for code, message in written:
        assert code in rows, code
        assert message in rows[code], (code, message)
