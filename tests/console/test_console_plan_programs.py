"""`/plan export` and `/plan import` typed in the console with programs: the file the console
writes has the saved program's steps; the edited file's import asks with the dry run's lines
(the program's new version named), is confirmed with yes, saved and audited; a wrong step
refuses the file. The bot on real services and mcsim over TCP RCON."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

from bot.operations import registry
from bot.store.programs import ProgramStore
from bot.testkit.harness import MOD
from mcsim.server import Server
from tests.console.typed import typed, typed_by
from tests.fixtures import start_bot

PASSWORD = "console-plan-programs-Pw"
STEPS = "- run: say one\n  at: +1h\n- run: say two\n  at: +2h\n  after: 1\n"
WRITTEN = (
    "programs:\n- name: evening\n  steps:\n  - run: say one\n    at: +1h\n"
    "  - run: say two\n    at: +2h\n    after: 1\n"
)


async def test_plan_export_and_import_with_programs_in_the_console(
    mcsim: Callable[..., Server], tmp_path: Path
) -> None:
    server = mcsim(password=PASSWORD)
    harness = await start_bot(server, tmp_path, PASSWORD)
    try:
        ops = harness.bot.ops
        await registry.run(
            ops, typed_by(MOD)(), "program save", {"name": "evening", "steps": STEPS}
        )
        folder = tmp_path / "files"
        text = await typed(ops, "/plan export\n", MOD, files=folder)
        found = re.findall(r"\(attached: plan-main\.yaml, saved as (.+?)\)\n", text)
        assert len(found) == 1, text
        exported = await asyncio.to_thread(Path(found[0]).read_text, encoding="utf-8")
        assert exported == f"version: 1\nserver: main\n{WRITTEN}", exported
        edited = tmp_path / "plan.yaml"
        edited.write_text(exported.replace("at: +2h", "at: +3h"), encoding="utf-8")
        said = await typed(ops, f"/plan import file:{edited}\nyes\n", MOD)
        asked = "change: programs[1] (evening) (its steps differ: it would be saved as version 2)"
        done = "change: programs[1] (evening) (its steps differ: saved as version 2)"
        assert asked in said and said.index(asked) < said.index(done), said
        store = ProgramStore(harness.services.db)
        latest = await store.latest("evening")
        assert latest is not None and latest.version == 2 and '"+3h"' in latest.steps
        audited = await harness.services.audit.mutations(limit=5)
        assert [m.action for m in audited][:2] == ["plan import", "program save"], audited
        wrong = tmp_path / "wrong.yaml"
        wrong.write_text(exported.replace("after: 1", "after: 2"), encoding="utf-8")
        refused = await typed(ops, f"/plan import file:{wrong}\n", MOD)
        assert (
            "programs[1] (evening) is refused: Step 2: after: 2 must name an earlier step (1 to 1)"
            in refused
        ), refused
        assert "Nothing was changed." in refused, refused
        still = await store.latest("evening")
        assert still is not None and still.version == 2
    finally:
        await harness.close()
