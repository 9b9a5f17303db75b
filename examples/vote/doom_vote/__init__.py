"""/vote: a community picks the next event, and the winner is scheduled.

A moderator starts a poll (`/vote start`: a question, 2 to 5 choices `label = command`, and
`when` the winner runs, as /schedule's `when` takes it); anyone votes (`/vote cast`, one ballot
each, a second one changes it) and sees the counts (`/vote show`); a moderator closes it
(`/vote close`): the choice with the most ballots wins (a tie: the one listed first), and its
command is scheduled through the built-in /schedule (its rank check, its command check, its
audit entry). Only if that succeeds is the poll closed; otherwise it stays open and /schedule's
own words say why. The polls are kept in the bot's database (bot.api.data_of), and listed on
the dashboard at /x/vote/.

It imports only bot.api, the bot's public API.
"""

from __future__ import annotations

__all__ = ["make_plugin"]

from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bot.api import (
    N_,
    Caller,
    Operations,
    OperationSpec,
    Outcome,
    Plugin,
    Rank,
    Section,
    ValidationError,
    _,
    run,
)
from bot.api import Field as SectionField
from doom_vote.polls import Poll, Polls, parse_choices, winner

_MARKUP = str.maketrans({c: "\\" + c for c in "\\*_~|`>"})


def plain(text: str) -> str:
    """A user's text shown as typed on every face: the shared markup's characters escaped."""
    return text.translate(_MARKUP)


def code(text: str) -> str:
    """A user's text as a code span (in which nothing is escaped, so no backtick may end it)."""
    return "`" + text.replace("`", "'") + "`"


class StartRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str = Field(min_length=1, max_length=200, description="What the vote decides.")
    choices: str = Field(
        min_length=3,
        max_length=1000,
        description="2 to 5 choices separated by |, each `label = command`.",
    )
    when: str = Field(
        min_length=1,
        max_length=100,
        description="When the winner runs, as /schedule's when (read when the vote closes).",
    )
    server: str | None = Field(default=None, description="Which Minecraft server.")


class CastRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    poll: int = Field(ge=1, description="The poll's number.")
    choice: str = Field(min_length=1, max_length=100, description="The choice's label.")


class PollRef(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    poll: int = Field(ge=1, description="The poll's number.")


class ShowRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    poll: int | None = Field(default=None, ge=1, description="The poll's number (the newest).")


def _counts_text(poll: Poll) -> str:
    return ", ".join(f"{plain(label)} {n}" for label, n in poll.counts().items())


def _how_to_vote(poll: Poll) -> str:
    return _(
        "Vote with `/vote cast poll:{poll} choice:LABEL`, one of: {labels}.",
        poll=poll.id,
        labels=", ".join(plain(c.label) for c in poll.choices),
    )


async def start(ops: Operations, caller: Caller, req: StartRequest) -> Outcome:
    """A new open poll; its number and how to vote."""
    choices = parse_choices(req.choices)
    if req.server is not None and ops.group(req.server) is None:
        ops.server(req.server)  # an unknown server is refused now, in the bot's words
    polls = Polls(ops)
    async with polls.lock:
        poll = await polls.add(
            req.question.strip(), choices, req.when.strip(), req.server, caller.name
        )
    said = _(
        "Poll {poll} is open: {question} {how} When it is closed (`/vote close poll:{poll}`), "
        "the winner's command is scheduled for {when}.",
        poll=poll.id,
        question=plain(poll.question),
        how=_how_to_vote(poll),
        when=code(poll.when),
    )
    return Outcome(said, {"poll": poll.id, "choices": [c.label for c in poll.choices]})


async def cast(ops: Operations, caller: Caller, req: CastRequest) -> Outcome:
    """The caller's ballot (a second one replaces the first)."""
    poll, choice, before = await Polls(ops).cast(req.poll, caller.user_id, req.choice)
    if before is None:
        said = _(
            "Your vote for {label} in poll {poll} is counted.",
            label=plain(choice.label),
            poll=poll.id,
        )
    elif before == choice.label:
        said = _(
            "You already vote for {label} in poll {poll}.", label=plain(choice.label), poll=poll.id
        )
    else:
        said = _(
            "Your vote in poll {poll} is now {label} (it was {before}).",
            poll=poll.id,
            label=plain(choice.label),
            before=plain(before),
        )
    return Outcome(said, {"poll": poll.id, "choice": choice.label, "counts": poll.counts()})


def poll_section(poll: Poll) -> Section:
    """A poll as every face shows it: a field per choice with its count, and how it stands."""
    fields = tuple(
        SectionField(f"{plain(c.label)}: {n}", code(c.command))
        for c, n in zip(poll.choices, poll.counts().values(), strict=True)
    )
    if poll.open:
        footer = _(
            "Open: the winner runs {when} once closed. {how}",
            when=code(poll.when),
            how=_how_to_vote(poll),
        )
    else:
        footer = _(
            "Closed: {winner} won. {schedule}",
            winner=plain(poll.winner or ""),
            schedule=poll.schedule,
        )
    return Section(
        title=_("Poll {poll}: {question}", poll=poll.id, question=plain(poll.question)),
        fields=fields,
        footer=footer,
        tone="info" if poll.open else "ok",
    )


def poll_facts(poll: Poll) -> dict[str, Any]:
    return {
        "poll": poll.id,
        "question": poll.question,
        "open": poll.open,
        "when": poll.when,
        "server": poll.server,
        "counts": poll.counts(),
        "choices": [{"label": c.label, "command": c.command} for c in poll.choices],
        "winner": poll.winner,
    }


async def show(ops: Operations, caller: Caller, req: ShowRequest) -> Outcome:
    """One poll (the newest when none is named): its counts, open or closed, when it runs."""
    polls = Polls(ops)
    if req.poll is not None:
        poll = await polls.get(req.poll)
    else:
        every = await polls.all()
        if not every:
            return Outcome(_("There are no polls yet: a moderator starts one with `/vote start`."))
        poll = every[0]
    state = _("open") if poll.open else _("closed")
    said = _(
        "Poll {poll} is {state}: {counts}.", poll=poll.id, state=state, counts=_counts_text(poll)
    )
    return Outcome(said, poll_facts(poll), sections=(poll_section(poll),))


async def close(ops: Operations, caller: Caller, req: PollRef) -> Outcome:
    """The winner scheduled through the built-in /schedule; the poll closed only if it was."""
    polls = Polls(ops)
    async with polls.lock:  # no ballot is counted, and no second close starts, meanwhile
        poll = await polls.open(req.poll)
        if not poll.ballots:
            raise ValidationError(
                _("No one has voted in poll {poll} yet: nothing to schedule.", poll=poll.id),
                field="poll",
            )
        won, tied = winner(poll)
        asked: dict[str, object] = {"run": won.command, "when": poll.when, "id": f"vote-{poll.id}"}
        if poll.server is not None:
            asked["server"] = poll.server
        scheduled = await run(ops, caller, "schedule", asked)  # refused: the poll stays open
        poll = replace(poll, open=False, winner=won.label, schedule=scheduled.text)
        await polls.save(poll)
    if tied:
        result = _(
            "{labels} tied with {n} each; {label} was listed first, so it wins.",
            labels=", ".join(plain(t) for t in tied),
            n=poll.counts()[won.label],
            label=plain(won.label),
        )
    else:
        result = _("{label} wins.", label=plain(won.label))
    said = _(
        "Poll {poll} is closed ({counts}). {result} {schedule}",
        poll=poll.id,
        counts=_counts_text(poll),
        result=result,
        schedule=scheduled.text,
    )
    facts = {**poll_facts(poll), "tied": tied, "task": f"vote-{poll.id}"}
    return Outcome(said, facts, sections=scheduled.sections)


SPECS: tuple[OperationSpec[Any], ...] = (
    OperationSpec(
        "vote start",
        N_("Start a vote on the next event: 2 to 5 choices, each a command."),
        StartRequest,
        Rank.MODERATOR,
        start,
        changes=True,
    ),
    OperationSpec(
        "vote cast",
        N_("Vote in a poll (again to change your vote)."),
        CastRequest,
        Rank.NONE,
        cast,
        changes=True,
    ),
    OperationSpec(
        "vote show", N_("A poll's question, counts and when it runs."), ShowRequest, Rank.NONE, show
    ),
    OperationSpec(
        "vote close",
        N_("Close a poll and schedule the winner's command."),
        PollRef,
        Rank.MODERATOR,
        close,
        changes=True,
    ),
)


def make_plugin() -> Plugin:
    """The plugin, made for each bot that loads it: its dashboard page reads that bot's polls."""
    loaded: dict[str, Operations] = {}

    async def setup(ops: Operations) -> None:
        loaded["ops"] = ops

    def pages() -> object:
        from doom_vote.page import blueprint

        return blueprint(loaded)

    return Plugin(
        name="vote",
        version="0.1.0",
        api=(1, 1),  # the bot.api versions it works with
        operations=SPECS,
        setup=setup,
        pages=pages,
        label="Votes",
    )
