"""`/schedule ... on_doubt:run` typed in the console (the slash command's option, read against
the registry): a game-time task's record and a wall-clock row keep the policy, `/show` says
it, and a value other than skip or run is refused before anything is made."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path

from bot.testkit.harness import ADMIN
from console.session import run_console
from mcsim.server import Server
from tests.console.typed import typed_by
from tests.fixtures import start_bot

PASSWORD = "console-doubt-Pw"


async def test_on_doubt_typed_in_the_console_is_kept_and_shown(
    mcsim: Callable[..., Server], tmp_path: Path
) -> None:
    server = mcsim(password=PASSWORD)
    harness = await start_bot(server, tmp_path, PASSWORD)
    try:
        stdin = io.StringIO(
            "/schedule run:say border time:90000 unit:tick id:border on_doubt:run\n"
            "/schedule run:say nightly id:nightly when:in 90m on_doubt:run\n"
            "/schedule run:say plain time:90000 unit:tick id:plain\n"
            "/schedule run:say odd time:90000 unit:tick id:odd on_doubt:twice\n"
            "/show id:border\n"
            "/show id:nightly\n"
            "/show id:plain\n"
        )
        out = io.StringIO()
        await run_console(harness.bot.ops, stdin, out, typed_by(ADMIN))
        text = out.getvalue()
        # the choices' order is typing's: Literal["skip", "run"] is cached as an equal one
        assert re.search(r"! on_doubt is one of (skip, run|run, skip)\n", text), text
        said = "after a crash: run again if it may not have run"
        border = text.split("Task border\n")[1].split("Planned nightly\n")[0]
        nightly = text.split("Task border\n")[1].split("Planned nightly\n")[1]
        plain = text.split("Task plain\n")[1]
        assert said in border and said in nightly and "after a crash" not in plain, text
        target = harness.services.servers["main"]
        assert target.guard is not None
        policies = {e.task_id: e.on_doubt for e in await target.guard.ledger.entries()}
        assert policies == {"border": "run", "plain": "skip"}
        scheduler = harness.services.scheduler
        assert scheduler is not None
        row = await scheduler.find("main", "nightly")
        assert row is not None and row.on_doubt == "run"
    finally:
        await harness.close()
