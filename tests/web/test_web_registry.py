"""An operation declared only in the registry reaches every face with no face code: a toy
`/echo` (it reads the game time through the server) is a slash command, a console command, an
API route in the OpenAPI document; each face checks its rank, refuses bad input in words and
audits it. `/whoami`, the built-in registry operation, is in each face too."""

from __future__ import annotations

import io
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Literal

import pytest
from discord import app_commands
from pydantic import BaseModel, ConfigDict, Field

from bot.operations import Caller, Operations, Rank
from bot.operations.registry import File, OperationSpec, Outcome, Registry
from bot.services import build_services
from bot.testkit.harness import ADMIN, MOD, Harness, make_settings
from console.session import run_console
from mcsim.server import Server
from tests.console.typed import typed_by
from tests.fixtures import server_config
from tests.web.webclient import Client
from tests.web.webdash import BOT_TOKEN, PASSWORD, Clock, Dash
from web.server import WebServer


class EchoRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = Field(min_length=1, max_length=50, description="What to say back.")
    loud: bool = False
    mood: Literal["calm", "glad"] = "calm"


async def echo(ops: Operations, caller: Caller, req: EchoRequest) -> str:
    server = ops.server(None)
    ticks = await server.pack.get_time()  # a round trip to the server, as a real one makes
    said = req.text.upper() if req.loud else req.text
    return f"**{said}** ({req.mood}) at tick `{ticks}` on {server.name}"


ECHO = OperationSpec(
    name="echo",
    summary="Say a text back, with the game time.",
    request=EchoRequest,
    rank=Rank.ADMIN,
    handler=echo,
    changes=True,
)


@pytest.fixture
async def echoing(mc: Server, tmp_path: Path) -> AsyncIterator[Dash]:
    settings = make_settings(
        tmp_path, [server_config(mc, PASSWORD)], discord_token=BOT_TOKEN, web_port=0
    )
    services = await build_services(settings)
    harness = Harness(settings, services)
    harness.bot.ops.registry.add(ECHO)  # before any face is made: nothing else is written
    await harness.start()
    web = WebServer(services, harness.bot, port=0, clock=Clock())
    await web.start()
    harness.bot.web = web
    try:
        yield Dash(harness, web, mc, Clock(), None)  # type: ignore[arg-type]
    finally:
        await web.stop()
        await harness.close()


async def test_a_registered_operation_is_in_every_face(echoing: Dash) -> None:
    h = echoing.harness
    # Discord: a slash command with the request's fields as options, Discord's markup kept
    reply = await h.run("echo", ADMIN, text="hi", loud=True)
    assert re.fullmatch(r"\*\*HI\*\* \(calm\) at tick `\d+` on main", reply.text), reply.text
    refused = await h.run("echo", MOD, text="hi")
    assert "You need the admin role to use /echo." in refused.text
    found = h.bot.tree.get_command("echo")
    assert found is not None
    command = found.to_dict(h.bot.tree)  # what a sync sends Discord
    options = {o["name"]: o for o in command["options"]}
    assert options["text"]["required"] and not options["loud"]["required"]
    assert [c["value"] for c in options["mood"]["choices"]] == ["calm", "glad"]

    # the console: the same command typed on the core, listed in /help
    out = io.StringIO()
    lines = "/echo text:hey mood:glad\n/echo text:\n/help\n"
    await run_console(h.bot.ops, io.StringIO(lines), out, typed_by(ADMIN))
    said = out.getvalue()
    assert re.search(r"hey \(glad\) at tick \d+ on main", said), said
    assert "/echo:" in said and "/whoami:" in said

    # the API: a route in the OpenAPI document, the sentence plain
    admin = await Client(echoing).login(ADMIN)
    mod = await Client(echoing).login(MOD)
    try:
        status, text = await admin.get("/api/openapi.json")
        doc = json.loads(text)
        assert "/api/operations/echo" in doc["paths"], sorted(doc["paths"])
        csrf = {"X-CSRF-Token": await admin.csrf()}
        status, body = await admin.post(
            "/api/operations/echo", json={"text": "hi", "mood": "glad"}, headers=csrf
        )
        assert status == 200, body
        found = json.loads(body)
        assert found["operation"] == "echo"
        assert re.fullmatch(r"hi \(glad\) at tick \d+ on main", found["outcome"]), found
        status, body = await admin.post(
            "/api/operations/echo", json={"text": "hi", "mood": "sad"}, headers=csrf
        )
        assert status == 400 and json.loads(body)["field"] == "mood", body
        assert "calm" in json.loads(body)["error"], body
        status, body = await mod.post(
            "/api/operations/echo", json={"text": "hi"}, headers={"X-CSRF-Token": await mod.csrf()}
        )
        assert status == 403 and "admin role" in json.loads(body)["error"], body
        status, body = await mod.get("/api/operations")
        listed = {o["name"]: o for o in json.loads(body)["operations"]}
        assert listed["echo"]["rank"] == "admin" and listed["whoami"]["rank"] == "anyone"
        status, body = await mod.post(
            "/api/operations/whoami", json={}, headers={"X-CSRF-Token": await mod.csrf()}
        )
        assert status == 200 and "with the rank moderator" in json.loads(body)["outcome"], body
        # every change through it is audited, from whichever face (the console runs on this
        # harness's core; the API with a session cookie is the web's)
        status, body = await admin.get("/api/audit?action=echo")
        faces = sorted(m["face"] for m in json.loads(body)["mutations"])
        assert faces == ["console", "discord", "web"], faces
    finally:
        await admin.close()
        await mod.close()


def test_a_spec_a_face_could_not_offer_is_refused_when_registered() -> None:
    class Nested(BaseModel):
        where: dict[str, int]

    class BadName(BaseModel):
        Text: str

    registry = Registry()
    registry.add(ECHO)
    with pytest.raises(ValueError, match="registered already"):
        registry.add(ECHO)
    for spec, said in [
        (OperationSpec("Echo!", "x", EchoRequest, Rank.MODERATOR, echo), "one or two words"),
        (OperationSpec("a b c", "x", EchoRequest, Rank.MODERATOR, echo), "one or two words"),
        (OperationSpec("where", "x", Nested, Rank.MODERATOR, echo), "option 'where'"),  # type: ignore[arg-type]
        (OperationSpec("shout", "x", BadName, Rank.MODERATOR, echo), "not a Discord option"),  # type: ignore[arg-type]
        (OperationSpec("quiet", "", EchoRequest, Rank.MODERATOR, echo), "summary"),
    ]:
        with pytest.raises(ValueError, match=re.escape(said)):
            registry.add(spec)
    assert [s.name for s in registry] == ["echo"]


class NoteRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = Field(min_length=1, max_length=50)


async def note_add(ops: Operations, caller: Caller, req: NoteRequest) -> Outcome:
    return Outcome(
        f"Noted `{req.text}`.",
        {"text": req.text, "length": len(req.text)},
        (File("note.txt", req.text.encode()),),
    )


NOTE_ADD = OperationSpec("notes add", "Keep a note.", NoteRequest, Rank.MODERATOR, note_add)


async def test_a_two_word_operation_is_a_group_command_and_a_nested_route_with_its_facts(
    mc: Server, tmp_path: Path
) -> None:
    settings = make_settings(
        tmp_path, [server_config(mc, PASSWORD)], discord_token=BOT_TOKEN, web_port=0
    )
    services = await build_services(settings)
    harness = Harness(settings, services)
    harness.bot.ops.registry.add(NOTE_ADD)
    await harness.start()
    web = WebServer(services, harness.bot, port=0, clock=Clock())
    await web.start()
    harness.bot.web = web
    try:
        group = harness.bot.tree.get_command("notes")
        assert isinstance(group, app_commands.Group)
        assert [c.name for c in group.commands] == ["add"]
        reply = await harness.run("notes add", MOD, text="bring torches")
        # the outcome's file goes along with the reply
        assert reply.text.splitlines() == ["Noted `bring torches`.", "(attached: note.txt)"]
        # the built-ins are listed, answered by the cogs and the resource routes instead
        assert harness.bot.tree.get_command("schedule") is not None  # the cog's own
        mod = await Client(Dash(harness, web, mc, Clock(), None)).login(MOD)  # type: ignore[arg-type]
        try:
            csrf = {"X-CSRF-Token": await mod.csrf()}
            status, body = await mod.post(
                "/api/operations/notes/add", json={"text": "bring torches"}, headers=csrf
            )
            assert status == 200, body
            found = json.loads(body)
            assert found["outcome"] == "Noted bring torches.", found  # plain in the API
            assert found["facts"] == {"text": "bring torches", "length": 13}
            assert found["files"] == [{"name": "note.txt", "text": "bring torches"}]
            status, body = await mod.get("/api/operations")
            listed = {o["name"]: o for o in json.loads(body)["operations"]}
            assert listed["notes add"]["path"] == "/api/operations/notes/add"
            assert listed["schedule"]["path"] is None and listed["setup"]["rank"] == "admin"
            status, _body = await mod.post("/api/operations/schedule", json={}, headers=csrf)
            assert status == 404  # a built-in has its resource route, not a second one
        finally:
            await mod.close()
    finally:
        await web.stop()
        await harness.close()
