"""A new plugin from the template, as its author makes one: `python -m bot plugins new hello DIR`,
installed with pip (beside the bot, on the path of the processes here), is listed as loaded,
answers `/hello` in the console, is an API route in the OpenAPI document that runs it, shows its
page on the dashboard, and its own tests pass with a plain `pytest` in DIR (the test kit's
fixtures come from the installed bot: the core on mcsim, the dashboard, the local Discord)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.plugins.served import plugin_env, run, serving


@pytest.mark.slow
async def test_a_plugin_made_from_the_template_is_in_every_face(tmp_path: Path) -> None:
    project, site = tmp_path / "hello", tmp_path / "site"
    env = plugin_env(tmp_path, site)
    made = run(
        [sys.executable, "-m", "bot", "plugins", "new", "hello", str(project)], env, tmp_path
    )
    assert made.returncode == 0, made.stderr
    assert (project / "pyproject.toml").is_file() and (
        project / "tests" / "test_hello.py"
    ).is_file()
    again = run(
        [sys.executable, "-m", "bot", "plugins", "new", "hello", str(project)], env, tmp_path
    )
    assert again.returncode == 2 and "not an empty folder" in again.stderr  # nothing over it
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"]
    installed = run([*pip, "--target", str(site), str(project)], env, tmp_path)
    assert installed.returncode == 0, installed.stderr

    listed = run([sys.executable, "-m", "bot", "plugins"], env, tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "hello 0.1.0: loaded operations: /hello pages: /x/hello/" in listed.stdout, listed.stdout

    # the console (its embedded world): the operation with no console code
    console = run([sys.executable, "-m", "bot", "console"], env, tmp_path, "/hello\n/help\nquit\n")
    assert console.returncode == 0, console.stderr
    assert re.search(r"Hello from hello: it is tick \d+ \(day \d+\) on embedded\.", console.stdout)
    assert "/hello: Say hello with the server's game time." in console.stdout

    # the API and the dashboard, with no Discord: the route, its document, the page
    async with serving(tmp_path, env) as served:
        base, api = served.base, served.api
        async with api.get(f"{base}/api/openapi.json") as r:
            assert "/api/operations/hello" in (await r.json())["paths"]
        async with api.get(f"{base}/api/operations") as r:
            listed_ops = {o["name"]: o for o in (await r.json())["operations"]}
            assert listed_ops["hello"]["path"] == "/api/operations/hello"
        async with api.post(f"{base}/api/operations/hello", json={}) as r:
            assert r.status == 200, await r.text()
            answer = await r.json()
            assert answer["outcome"].startswith("Hello from hello: it is tick ")
            assert answer["facts"]["server"] == "main"
        async with served.browser.get(f"{base}/x/hello/") as r:
            page = await r.text()
            assert r.status == 200 and "<h1>Hello</h1>" in page, page
        async with served.browser.get(f"{base}/servers") as r:
            assert 'href="/x/hello/"' in await r.text()  # in the navigation

    # the template's own tests, with a plain pytest in its folder
    tested = run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], env, project)
    assert tested.returncode == 0, tested.stdout[-3000:] + tested.stderr[-2000:]
    assert "5 passed" in tested.stdout, tested.stdout
