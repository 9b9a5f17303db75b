"""/vote through the test kit's fixtures (bot.testkit.pytest_plugin): a real mcsim server, the
application built on it with this plugin loaded, the dashboard, Discord (the local one)."""

from __future__ import annotations

import itertools

import pytest

from bot.api import Caller, NotAllowed, NotFound, Rank, ValidationError, run
from bot.testkit.harness import MOD, NOBODY

CHOICES = "Parkour = say parkour night | PvP = say pvp night | Build = say build night"
_refs = itertools.count(1000)


def player(user_id: int) -> Caller:
    """Anyone: a caller with no rank."""
    return Caller(user_id, f"player{user_id}", Rank.NONE, "console", next(_refs))


async def _start(ops, mod: Caller, choices: str = CHOICES, when: str = "in 2h") -> int:
    started = await run(
        ops, mod, "vote start", {"question": "Next event?", "choices": choices, "when": when}
    )
    assert f"Poll {started.facts['poll']} is open" in started.text, started.text
    return int(started.facts["poll"])


async def test_the_plugin_is_loaded(doom_core) -> None:
    [state] = [s for s in doom_core.plugins if s.name == "vote"]
    assert state.state == "loaded" and state.version == "0.1.0", state
    assert set(state.operations) == {"vote start", "vote cast", "vote show", "vote close"}
    assert state.pages == "/x/vote/"


async def test_a_vote_schedules_its_winner(doom_core, doom_moderator) -> None:
    ops = doom_core.ops
    poll = await _start(ops, doom_moderator)
    assert poll == 1
    said = await run(ops, player(1), "vote cast", {"poll": poll, "choice": "pvp"})
    assert said.text == "Your vote for PvP in poll 1 is counted.", said.text
    await run(ops, player(2), "vote cast", {"poll": poll, "choice": "PVP"})
    await run(ops, player(3), "vote cast", {"poll": poll, "choice": "Parkour"})
    changed = await run(ops, player(3), "vote cast", {"poll": poll, "choice": "Build"})
    assert changed.text == "Your vote in poll 1 is now Build (it was Parkour).", changed.text
    assert changed.facts["counts"] == {"Parkour": 0, "PvP": 2, "Build": 1}  # one ballot each

    shown = await run(ops, player(4), "vote show", {"poll": poll})
    assert shown.facts["open"] is True and shown.facts["counts"]["PvP"] == 2
    assert shown.text == "Poll 1 is open: Parkour 0, PvP 2, Build 1.", shown.text
    [section] = shown.sections
    assert section.title == "Poll 1: Next event?"
    assert [f.name for f in section.fields] == ["Parkour: 0", "PvP: 2", "Build: 1"]
    assert "`/vote cast poll:1 choice:LABEL`" in section.footer

    closed = await run(ops, doom_moderator, "vote close", {"poll": poll})
    assert closed.text.startswith("Poll 1 is closed (Parkour 0, PvP 2, Build 1). PvP wins. ")
    assert closed.facts["winner"] == "PvP" and closed.facts["tied"] == []
    assert "vote-1" in closed.text, closed.text  # /schedule's own sentence
    planned = await run(ops, doom_moderator, "list", {"which": "planned"})
    [row] = [r for r in planned.facts["planned"] if r["task_id"] == "vote-1"]
    assert row["run"] == "say pvp night" and row["state"] == "active", row

    after = await run(ops, player(4), "vote show", {})  # the newest
    assert after.facts["open"] is False and after.facts["winner"] == "PvP"
    assert after.sections[0].footer.startswith("Closed: PvP won. ")
    with pytest.raises(ValidationError, match="Poll 1 is closed: PvP won"):
        await run(ops, player(5), "vote cast", {"poll": poll, "choice": "Build"})
    with pytest.raises(ValidationError, match="Poll 1 is closed"):
        await run(ops, doom_moderator, "vote close", {"poll": poll})


async def test_a_tie_goes_to_the_choice_listed_first(doom_core, doom_moderator) -> None:
    ops = doom_core.ops
    poll = await _start(ops, doom_moderator)
    await run(ops, player(1), "vote cast", {"poll": poll, "choice": "Build"})
    await run(ops, player(2), "vote cast", {"poll": poll, "choice": "PvP"})
    closed = await run(ops, doom_moderator, "vote close", {"poll": poll})
    assert "PvP, Build tied with 1 each; PvP was listed first, so it wins." in closed.text
    assert closed.facts["winner"] == "PvP" and closed.facts["tied"] == ["PvP", "Build"]
    planned = await run(ops, doom_moderator, "list", {"which": "planned"})
    assert [r["run"] for r in planned.facts["planned"] if r["task_id"] == f"vote-{poll}"] == [
        "say pvp night"
    ]


@pytest.mark.parametrize(
    ("choices", "said"),
    [
        ("Parkour = say hi", "A vote has 2 to 5 choices separated by |"),
        (" | ".join(f"C{n} = say {n}" for n in range(6)), "6 given"),
        ("Parkour = say hi | PvP", "Choice 2 ('PvP') is not `label = command`"),
        ("Parkour = say hi |  = say pvp", "Choice 2 ('= say pvp') is not"),
        ("Parkour = say hi | PvP = ", "Choice 2 ('PvP =') is not"),
        ("Parkour = say hi | parkour = say pvp", "Two choices are called 'parkour'"),
    ],
)
async def test_choices_of_the_wrong_shape_are_refused(
    doom_core, doom_moderator, choices: str, said: str
) -> None:
    with pytest.raises(ValidationError) as refused:
        await _start(doom_core.ops, doom_moderator, choices)
    assert said in str(refused.value), refused.value
    shown = await run(doom_core.ops, doom_moderator, "vote show", {})
    assert shown.text.startswith("There are no polls yet"), shown.text  # nothing was started


async def test_refusals_change_nothing(doom_core, doom_moderator) -> None:
    ops = doom_core.ops
    with pytest.raises(NotAllowed):  # starting and closing are a moderator's
        await _start(ops, player(1))
    on_nowhere = {"question": "?", "choices": CHOICES, "when": "in 2h", "server": "nowhere"}
    with pytest.raises(ValidationError, match="nowhere"):  # the bot's own words
        await run(ops, doom_moderator, "vote start", on_nowhere)
    poll = await _start(ops, doom_moderator, "Boom = stop | Party = say party")
    assert poll == 1  # nothing refused made a poll
    with pytest.raises(NotFound, match="There is no poll 9"):
        await run(ops, player(1), "vote cast", {"poll": 9, "choice": "Boom"})
    with pytest.raises(ValidationError, match="no choice called 'Nap': vote for one of Boom, Par"):
        await run(ops, player(1), "vote cast", {"poll": poll, "choice": "Nap"})
    with pytest.raises(ValidationError, match="No one has voted in poll 1 yet"):
        await run(ops, doom_moderator, "vote close", {"poll": poll})
    await run(ops, player(1), "vote cast", {"poll": poll, "choice": "boom"})
    with pytest.raises(NotAllowed):
        await run(ops, player(1), "vote close", {"poll": poll})
    # /schedule refuses the winner's command in its own words: the poll stays open
    with pytest.raises(ValidationError) as refused:
        await run(ops, doom_moderator, "vote close", {"poll": poll})
    assert "stop" in str(refused.value), refused.value
    shown = await run(ops, player(2), "vote show", {"poll": poll})
    assert shown.facts["open"] is True and shown.facts["counts"] == {"Boom": 1, "Party": 0}
    await run(ops, player(1), "vote cast", {"poll": poll, "choice": "Party"})
    closed = await run(ops, doom_moderator, "vote close", {"poll": poll})
    assert closed.facts["winner"] == "Party"


async def test_a_vote_in_discord(doom_discord) -> None:
    started = await doom_discord.run(
        "vote start", MOD, question="Next event?", choices=CHOICES, when="fri 20:00"
    )
    assert "Poll 1 is open: Next event?" in started.text, started.text
    cast = await doom_discord.run("vote cast", NOBODY, poll=1, choice="parkour")
    assert "Your vote for Parkour in poll 1 is counted." in cast.text, cast.text
    shown = await doom_discord.run("vote show", NOBODY, poll=1)
    assert "Poll 1 is open: Parkour 1, PvP 0, Build 0." in shown.text, shown.text


async def test_the_page_lists_the_polls(doom_core, doom_dashboard, doom_moderator) -> None:
    status, html = await doom_dashboard.get("/x/vote/")
    assert status == 200 and "No polls yet" in html, html
    choices = "<b>Loud</b> = say loud | Quiet = say quiet"
    started = await run(
        doom_core.ops,
        doom_moderator,
        "vote start",
        {"question": "<script>alert(1)</script>?", "choices": choices, "when": "in 2h"},
    )
    await run(
        doom_core.ops, player(1), "vote cast", {"poll": started.facts["poll"], "choice": "quiet"}
    )
    status, html = await doom_dashboard.get("/x/vote/")
    assert status == 200 and "<h1>Votes</h1>" in html, html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;?" in html and "<script>alert" not in html
    assert "<td>&lt;b&gt;Loud&lt;/b&gt;</td>" in html
    assert "<td>Quiet</td>\n<td><code>say quiet</code></td><td>1</td>" in html, html
