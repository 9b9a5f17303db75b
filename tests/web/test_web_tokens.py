"""API tokens on the dashboard: admins make, see and revoke them; the secret is shown once and
works as a bearer token until revoked; moderators do not reach the page."""

from __future__ import annotations

import json
import re

from bot.testkit.harness import MOD
from tests.web.webclient import Client
from tests.web.webdash import Dash


async def test_an_admin_makes_a_token_sees_it_once_and_revokes_it(
    dash: Dash, admin: Client
) -> None:
    mod = await Client(dash).login(MOD)
    try:
        status, _ = await mod.get("/tokens")
        assert status == 403
        status, _ = await mod.post("/tokens", data={"csrf_token": await mod.csrf(), "name": "x"})
        assert status == 403
    finally:
        await mod.close()
    status, html = await admin.get("/tokens")
    assert status == 200 and "No API tokens." in html
    csrf = await admin.csrf()
    # a bad name is refused in words; nothing is made
    status, html = await admin.post("/tokens", data={"csrf_token": csrf, "name": "two words"})
    assert status == 400 and "is not one" in html and "No API tokens." in html
    status, html = await admin.post(
        "/tokens", data={"csrf_token": csrf, "name": "ci", "rank": "moderator"}
    )
    assert status == 200
    secret = re.search(r'<code class="secret">(doom_[\w-]+)</code>', html)
    assert secret is not None, html
    assert "<code>ci</code>" in html and "never" in html
    bearer = {"Authorization": f"Bearer {secret[1]}"}
    anon = Client(dash)
    try:
        status, body = await anon.get("/api/me", headers=bearer)
        assert status == 200 and json.loads(body)["rank"] == "moderator"
        status, html = await admin.get("/tokens")
        assert secret[1] not in html  # shown once, on the page that made it
        assert "never" not in html  # its last use is shown now
        status, body = await admin.get("/api/audit?action=token new")
        assert [m["request"] for m in json.loads(body)["mutations"]] == [
            {"name": "ci", "rank": "moderator"}
        ]
        status, _ = await admin.post("/tokens/revoke", data={"csrf_token": csrf, "name": "ci"})
        assert status == 303
        status, html = await admin.get("/tokens")
        assert "API token ci revoked" in html and "No API tokens." in html
        status, body = await anon.get("/api/me", headers=bearer)
        assert status == 401
    finally:
        await anon.close()
