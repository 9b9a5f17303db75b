"""Generated bad input on every route, over real HTTP to the Hypercorn server: never a 5xx, and
no Discord markup in the API's sentences.

The API's routes come from its own OpenAPI document (schemathesis: values that fit the schema
and values that do not, for every parameter and body), called with a bearer token of an admin
and, for the admin-only routes, of a moderator. The routes the document leaves out (the pages,
/login, /logout, /metrics, /healthz, an extension's pages) get hypothesis' query strings, form
fields and raw bodies. Bounded example counts keep each test under ~30 s on a busy machine.

Schemathesis calls with ``requests`` (blocking), so its loop runs in a thread while the test's
event loop serves the app, mcsim's RCON and the local Discord.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import quote, urlencode

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bot.testkit.harness import ADMIN, MOD, User
from tests.web.webclient import Client
from tests.web.webdash import Dash

pytestmark = pytest.mark.slow

EXAMPLES = 10  # per operation, mode and parameter choice: under the 60 writes a session may do
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
# the values the routes know, so that generated input reaches past "no such server"
KNOWN = {"name": "main", "which": "queue", "verb": "pause", "task_id": "keep", "plan_id": "1"}


# Discord's markup: the API's sentences are plain text, times in ISO 8601
MARKUP = ("`", "**", "<t:")


def _sent(case: Any) -> str:
    return json.dumps([case.body, case.path_parameters, case.query], default=str)


# the keys whose values are data a user gave (a command, an id, a name, a plan file's entry),
# which the API gives back as they are; every other text in an answer is the bot's own
DATA = frozenset(
    {"run", "id", "task_id", "name", "description", "request", "entry", "details", "shown"}
)


def _prose(response: Any) -> str:
    """Every text of a JSON answer but the DATA keys' values, joined ("" for other answers)."""
    # schemathesis' Response: each header's values as a list, names as sent (lower case)
    types = {k.lower(): v for k, v in response.headers.items()}.get("content-type", [])
    if not any("json" in t for t in types):
        return ""
    found: list[str] = []

    def walk(value: Any, data: bool) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(inner, key in DATA)
        elif isinstance(value, list):
            for inner in value:
                walk(inner, data)
        elif not data and isinstance(value, str):
            found.append(value)

    walk(response.json(), False)
    return "\n".join(found)


async def bearer(dash: Dash, user: User) -> str:
    """A bearer token of a session of its own (the write limit counts per session)."""
    client = await Client(dash).login(user)
    try:
        status, body = await client.get("/api/token")
        assert status == 200, body
        token: str = json.loads(body)["token"]
        return token
    finally:
        await client.close()


def drive(operation: Any, url: str, token: str, fixed: dict[str, str], examples: int) -> int:
    """`examples` generated cases of this operation in each mode; the number of calls."""
    calls = 0
    path_names = {p.name for p in operation.path_parameters}
    for mode in (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE):
        kept = {k: v for k, v in fixed.items() if k in path_names}
        strategy = operation.as_strategy(generation_mode=mode, path_parameters=kept or None)

        @settings(FUZZ, max_examples=examples)
        @given(case=strategy)
        def call(case: Any) -> None:
            nonlocal calls
            sent = _sent(case)  # before the call, which may encode the path's values
            response = case.call(
                base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30
            )
            calls += 1
            assert response.status_code < 500, (
                case.as_curl_command(),
                response.status_code,
                response.text[:500],
            )
            if not any(m in sent for m in MARKUP):  # else the input may be quoted back
                said = _prose(response)
                assert not [m for m in MARKUP if m in said], (case.as_curl_command(), said[:500])

        call()
    return calls


# the operations are split over this many tests, so that parallel workers share them out
SHARDS = 4


@pytest.mark.parametrize("shard", range(SHARDS))
async def test_every_api_route_answers_generated_input_without_a_5xx(
    kept: Dash, shard: int
) -> None:
    anon = Client(kept)
    try:
        status, text = await anon.get("/api/openapi.json")
        assert status == 200, text
        doc = json.loads(text)
    finally:
        await anon.close()
    schema = schemathesis.openapi.from_dict(doc)
    every = [result.ok() for result in schema.get_all_operations()]
    paths = {op.path for op in every}
    assert {"/api/servers/{name}/tasks", "/api/servers/{name}/clear", "/api/audit"} <= paths
    assert not [p for p in paths if not p.startswith("/api/")]  # the pages are not in it
    every.sort(key=lambda op: (op.path, op.method))  # the same shards in every worker
    operations = every[shard::SHARDS]
    assert operations, (shard, len(every))
    total = 0
    for operation in operations:
        admin_only = operation.path.endswith("/clear")
        users = [ADMIN, MOD] if admin_only else [ADMIN]
        for user in users:
            # one session per operation: at most 30 writes, under its 60 a minute; and
            # 12 logins, under the 20 a minute one user has
            token = await bearer(kept, user)
            for fixed in ({}, KNOWN):  # anything, then the names the routes know
                # a write that reaches the pack waits for its ticks: fewer of those
                examples = EXAMPLES // 2 if fixed and operation.method == "post" else EXAMPLES
                total += await asyncio.to_thread(drive, operation, kept.url, token, fixed, examples)
    assert total >= len(operations) * 2 * EXAMPLES  # every operation was really called


def send_examples(operation: Any, url: str, token: str) -> list[str]:
    """Each request the document gives as an example, with the path's names known; what the
    API said in each answer (its texts but the data it gives back)."""
    said: list[str] = []
    for strategy in operation.get_strategies_from_examples():

        @settings(FUZZ, max_examples=1)
        @given(case=strategy)
        def call(case: Any) -> None:
            for name in case.path_parameters or {}:
                case.path_parameters[name] = {**KNOWN, "group": "all"}.get(
                    name, case.path_parameters[name]
                )
            response = case.call(
                base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30
            )
            assert response.status_code < 500, (case.as_curl_command(), response.text[:500])
            said.append(_prose(response))

        call()
    return said


async def test_the_documented_examples_are_answered_in_plain_sentences(kept: Dash) -> None:
    """The examples of the API's document, sent as they are: their answers' sentences carry
    no Discord markup (no backticks, bold or <t:…> times)."""
    anon = Client(kept)
    try:
        status, text = await anon.get("/api/openapi.json")
        assert status == 200, text
    finally:
        await anon.close()
    schema = schemathesis.openapi.from_dict(json.loads(text))
    token = await bearer(kept, ADMIN)
    said: list[str] = []
    for result in schema.get_all_operations():
        said += await asyncio.to_thread(send_examples, result.ok(), kept.url, token)
    assert len(said) >= 5, said  # the examples were sent and answered
    assert any("raid" in s for s in said), [s for s in said if s]  # ... and reached the operations
    marked = [s for s in said if any(m in s for m in MARKUP)]
    assert not marked, marked


# -- the routes outside the OpenAPI document ---------------------------------------------------

TEXT = st.text(st.characters(codec="utf-8"), max_size=40)
NUMBERS = st.one_of(
    st.integers(-(2**70), 2**70).map(str), st.sampled_from(["", " ", "1e9", "0x10", "٣", "-0"])
)
FIELDS = [
    "t",
    "page",
    "id",
    "user",
    "server",
    "action",
    "before",
    "run",
    "time",
    "unit",
    "retry",
    "confirm",
    "list",
    "extension",
    "csrf_token",
    "when",
    "repeat",
    "timezone",
    "announce",
    "at",
    "every",
    "prefix",
    "target",
    "preview",
    "name",
    "start",
    "end",
    "view",
]
QUERY = st.dictionaries(
    st.one_of(st.sampled_from(FIELDS), TEXT), st.one_of(NUMBERS, TEXT), max_size=5
)
SEGMENT = st.one_of(st.sampled_from(["main", "queue", "keep", "1", "pause", "nowhere"]), TEXT)
# the routes with the names they know (most tries), and with any names
READS = [
    "/",
    "/servers",
    "/servers/main/queue",
    "/servers/main/offline",
    "/servers/main/paused",
    "/servers/main/planned",
    "/servers/main/tasks/keep",
    "/servers/main/clear",
    "/events",
    "/audit",
    "/extensions",
    "/login",
    "/metrics",
    "/healthz",
    "/x/commands/",
    "/servers/{a}/{b}",
    "/servers/{a}/tasks/{b}",
    "/servers/{a}/clear",
    "/x/{a}/{b}",
    "/discord-events",
    "/discord-events/{a}",
    "/servers/{a}/admin",
    "/servers/{a}/tasks/{b}/cancel_all",
    "/servers/{a}/plan/download",
    "/groups/all",
    "/groups/all/queue",
    "/groups/all/tasks/keep",
    "/groups/{a}",
    "/groups/{a}/{b}",
    "/groups/{a}/tasks/{b}",
    "/groups/{a}/history/{b}",
    "/groups/{a}/clear",
    "/groups/{a}/tasks/{b}/cancel_all",
    "/pick",
]
WRITES = [
    "/servers/main/schedule",
    "/servers/main/tasks/keep/pause",
    "/servers/main/tasks/keep/resume",
    "/servers/main/planned/1/pause",
    "/servers/main/clear",
    "/extensions/reload",
    "/logout",
    "/login",
    "/servers/{a}/schedule",
    "/servers/{a}/tasks/{b}/{c}",
    "/servers/{a}/planned/{b}/{c}",
    "/servers/main/queue",
    "/discord-events",
    "/discord-events/{a}/edit",
    "/discord-events/{a}/cancel",
    "/groups/all/queue",
    "/groups/all/tasks/keep/pause",
    "/groups/{a}/queue",
    "/groups/{a}/tasks/{b}/{c}",
    "/groups/{a}/clear",
]
BODY = st.one_of(
    st.tuples(
        st.just("form"),
        st.dictionaries(st.sampled_from(FIELDS), st.one_of(NUMBERS, TEXT), max_size=6),
    ),
    st.tuples(
        st.sampled_from(
            [
                "application/json",
                "text/plain",
                "multipart/form-data",
                "application/x-www-form-urlencoded",
                "application/octet-stream",
            ]
        ),
        st.binary(max_size=300),
    ),
)


def path_of(template: str, parts: list[str]) -> str:
    a, b, c = (quote(p, safe="") or "-" for p in parts)
    return template.format(a=a, b=b, c=c)


async def test_pages_and_forms_answer_generated_input_without_a_5xx(kept: Dash) -> None:
    client = await Client(kept).login(ADMIN)
    csrf = await client.csrf()
    loop = asyncio.get_running_loop()

    def run(coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, loop).result(30)

    def check(method: str, path: str, status: int, body: str) -> None:
        assert status < 500, (method, path, status, body[:500])
        assert "Traceback" not in body and "Unexpected error" not in body, (method, path)

    @settings(FUZZ, max_examples=80)
    @given(
        template=st.sampled_from(READS),
        parts=st.lists(SEGMENT, min_size=3, max_size=3),
        query=QUERY,
    )
    def reads(template: str, parts: list[str], query: dict[str, str]) -> None:
        path = path_of(template, parts) + "?" + urlencode(query)
        status, body = run(client.get(path))
        check("GET", path, status, body)

    @settings(FUZZ, max_examples=80)
    @given(
        template=st.sampled_from(WRITES),
        parts=st.lists(SEGMENT, min_size=3, max_size=3),
        body=BODY,
        with_csrf=st.booleans(),
    )
    def writes(template: str, parts: list[str], body: tuple[str, Any], with_csrf: bool) -> None:
        if template == "/logout":
            with_csrf = False  # a logout with the right token would end the session under test
        path = path_of(template, parts)
        kind, payload = body
        headers = {"X-CSRF-Token": csrf} if with_csrf else {}
        if kind == "form":
            form = {**payload, "csrf_token": csrf} if with_csrf else payload
            status, text = run(client.post(path, data=form, headers=headers))
        else:
            headers["Content-Type"] = kind
            status, text = run(client.post(path, data=payload, headers=headers))
        check("POST", path, status, text)

    try:
        await asyncio.to_thread(reads)
        await asyncio.to_thread(writes)
        assert (await client.get("/servers"))[0] == 200  # still logged in: the run was real
    finally:
        await client.close()
