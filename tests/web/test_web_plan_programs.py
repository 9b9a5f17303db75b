"""The plan file's programs from Discord: `/plan import` of an attached file asks with the dry
run's lines (the programs to add, change or leave), Confirm saves them, `/plan export` attaches
them; a wrong step refuses the file with no Confirm to press. The bot's local Discord, mcsim
over TCP RCON."""

from __future__ import annotations

import yaml

from bot.store.programs import ProgramStore
from bot.testkit.harness import MOD
from bot.testkit.localdiscord.http_session import LocalFile
from bot.testkit.localdiscord.message_text import buttons
from tests.web.webdash import Dash

PLAN = """\
version: 1
server: main
programs:
- name: evening
  steps:
  - run: say soon
    at: -10m
  - run: function event:start
  - run: say round two
    at: +5m
    after: 2
    on_failure: stop
"""


async def _exported(dash: Dash) -> str:
    reply = await dash.harness.run("plan export", MOD)
    [(name, body)] = [f for s in reply.messages for f in s.files]
    assert name == "plan-main.yaml"
    return body.decode()


async def test_programs_imported_in_discord_after_the_dry_run_and_exported(dash: Dash) -> None:
    file = LocalFile("plan.yaml", PLAN.encode())
    asked = await dash.harness.run("plan import", MOD, file=file)
    assert "Importing into main would:" in asked.text, asked.text
    assert "add: programs[1] (evening)" in asked.text, asked.text
    store = ProgramStore(dash.harness.services.db)
    assert await store.latest("evening") is None  # asked only
    message_id = asked.messages[-1].message_id
    assert message_id is not None
    done = await dash.harness.press(message_id, "Confirm", MOD)
    assert "Imported into main:" in done.text, done.text
    assert await _exported(dash) == PLAN
    changed = PLAN.replace("on_failure: stop", "on_failure: skip")
    asked = await dash.harness.run("plan import", MOD, file=LocalFile("p.yaml", changed.encode()))
    assert "it would be saved as version 2" in asked.text, asked.text
    message_id = asked.messages[-1].message_id
    assert message_id is not None
    done = await dash.harness.press(message_id, "Confirm", MOD)
    assert "saved as version 2" in done.text, done.text
    assert yaml.safe_load(await _exported(dash))["programs"][0]["steps"][2]["on_failure"] == "skip"
    wrong = LocalFile("w.yaml", PLAN.replace("after: 2", "after: 3").encode())
    refused = await dash.harness.run("plan import", MOD, file=wrong)
    assert "programs[1] (evening) is refused: Step 3" in refused.text, refused.text
    assert not any(b.get("label") == "Confirm" for s in refused.messages for b in buttons(s.data))
    latest = await store.latest("evening")
    assert latest is not None and latest.version == 2
