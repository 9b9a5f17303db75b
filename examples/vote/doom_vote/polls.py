"""The polls: what a vote is, how its choices are read, who wins, and where it is kept.

A poll is one JSON value under ``poll:<id>`` in the plugin's own data (``bot.api.data_of``, in
the bot's database), its ballots inside it by voter; the next id is under ``next``. Every
change reads, changes and writes one poll while holding the lock of the bot's operations, so
two ballots at once are both counted and a poll is closed once.
"""

from __future__ import annotations

__all__ = ["MAX_CHOICES", "MIN_CHOICES", "Choice", "Poll", "Polls", "parse_choices", "winner"]

import asyncio
from dataclasses import dataclass, field, replace
from typing import Any
from weakref import WeakKeyDictionary

from bot.api import NotFound, Operations, PluginData, ValidationError, _, data_of

MIN_CHOICES, MAX_CHOICES = 2, 5
MAX_LABEL = 40  # characters: a label is typed to vote, and shown on every face

_locks: WeakKeyDictionary[Operations, asyncio.Lock] = WeakKeyDictionary()


@dataclass(frozen=True)
class Choice:
    label: str
    command: str


@dataclass(frozen=True)
class Poll:
    """One vote. `ballots`: each voter's (a user id, as text) label; `schedule`: what the
    built-in /schedule said when the poll closed."""

    id: int
    question: str
    choices: tuple[Choice, ...]
    when: str
    server: str | None
    by: str
    open: bool = True
    ballots: dict[str, str] = field(default_factory=dict)
    winner: str | None = None
    schedule: str = ""

    def counts(self) -> dict[str, int]:
        """Each choice's ballots, in the order the choices were listed."""
        found = {c.label: 0 for c in self.choices}
        for label in self.ballots.values():
            if label in found:
                found[label] += 1
        return found

    def choice(self, label: str) -> Choice:
        """The choice called `label` (any case), or ValidationError naming them all."""
        for c in self.choices:
            if c.label.casefold() == label.strip().casefold():
                return c
        raise ValidationError(
            _(
                "Poll {poll} has no choice called {label}: vote for one of {labels}.",
                poll=self.id,
                label=repr(label),
                labels=", ".join(c.label for c in self.choices),
            ),
            field="choice",
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "question": self.question,
            "choices": [{"label": c.label, "command": c.command} for c in self.choices],
            "when": self.when,
            "server": self.server,
            "by": self.by,
            "open": self.open,
            "ballots": self.ballots,
            "winner": self.winner,
            "schedule": self.schedule,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Poll:
        return cls(
            id=int(data["id"]),
            question=str(data["question"]),
            choices=tuple(Choice(str(c["label"]), str(c["command"])) for c in data["choices"]),
            when=str(data["when"]),
            server=data.get("server"),
            by=str(data.get("by", "")),
            open=bool(data.get("open", True)),
            ballots={str(k): str(v) for k, v in data.get("ballots", {}).items()},
            winner=data.get("winner"),
            schedule=str(data.get("schedule", "")),
        )


def parse_choices(text: str) -> tuple[Choice, ...]:
    """`Parkour = function event:parkour | PvP = function event:pvp` as its choices, or
    ValidationError saying what is wrong with them."""
    parts = [p.strip() for p in text.split("|")]
    if not MIN_CHOICES <= len(parts) <= MAX_CHOICES:
        raise ValidationError(
            _(
                "A vote has {low} to {high} choices separated by |, each `label = command`: "
                "{n} given.",
                low=MIN_CHOICES,
                high=MAX_CHOICES,
                n=len(parts),
            ),
            field="choices",
        )
    choices: list[Choice] = []
    for n, part in enumerate(parts, 1):
        label, equals, command = (s.strip() for s in part.partition("="))
        if not equals or not label or not command:
            raise ValidationError(
                _(
                    "Choice {n} ({part}) is not `label = command`: write a name, =, then the "
                    "command the winner runs.",
                    n=n,
                    part=repr(part),
                ),
                field="choices",
            )
        if len(label) > MAX_LABEL:
            raise ValidationError(
                _("Choice {n}'s label is over {max} characters.", n=n, max=MAX_LABEL),
                field="choices",
            )
        if any(c.label.casefold() == label.casefold() for c in choices):
            raise ValidationError(
                _("Two choices are called {label}: each label is its own.", label=repr(label)),
                field="choices",
            )
        choices.append(Choice(label, command))
    return tuple(choices)


def winner(poll: Poll) -> tuple[Choice, list[str]]:
    """The choice with the most ballots, and the labels tied with it at the top (empty when it
    won alone); a tie goes to the one listed first."""
    counts = poll.counts()
    top = max(counts.values())
    tied = [label for label, n in counts.items() if n == top]
    return poll.choice(tied[0]), (tied if len(tied) > 1 else [])


class Polls:
    """The polls of one bot (its operations' database)."""

    def __init__(self, ops: Operations) -> None:
        self.data: PluginData = data_of(ops, "vote")
        self.lock = _locks.setdefault(ops, asyncio.Lock())

    @staticmethod
    def _key(poll: int) -> str:
        return f"poll:{poll:06d}"

    async def add(
        self, question: str, choices: tuple[Choice, ...], when: str, server: str | None, by: str
    ) -> Poll:
        """A new open poll under the next id (call with the lock held)."""
        number = int(await self.data.get("next", 1))
        poll = Poll(number, question, choices, when, server, by)
        await self.data.put(self._key(number), poll.to_json())
        await self.data.put("next", number + 1)
        return poll

    async def get(self, poll: int) -> Poll:
        """The poll with this id, or NotFound."""
        found = await self.data.get(self._key(poll)) if poll > 0 else None
        if found is None:
            raise NotFound(
                _("There is no poll {poll}: `/vote show` lists none by that id.", poll=poll),
            )
        return Poll.from_json(found)

    async def open(self, poll: int) -> Poll:
        """The poll with this id if it is still open, else NotFound or ValidationError."""
        found = await self.get(poll)
        if not found.open:
            raise ValidationError(
                _(
                    "Poll {poll} is closed: {winner} won, and nothing more is counted.",
                    poll=poll,
                    winner=found.winner,
                ),
                field="poll",
            )
        return found

    async def save(self, poll: Poll) -> None:
        await self.data.put(self._key(poll.id), poll.to_json())

    async def all(self) -> list[Poll]:
        """Every poll, newest first."""
        keys = await self.data.keys("poll:")
        polls = [Poll.from_json(await self.data.get(k)) for k in keys]
        return sorted(polls, key=lambda p: p.id, reverse=True)

    async def cast(self, poll: int, voter: int, label: str) -> tuple[Poll, Choice, str | None]:
        """`voter`'s ballot for `label`; the poll after it, the choice, and the label the voter
        had chosen before (None for a first ballot)."""
        async with self.lock:
            found = await self.open(poll)
            choice = found.choice(label)
            before = found.ballots.get(str(voter))
            ballots = {**found.ballots, str(voter): choice.label}
            after = replace(found, ballots=ballots)
            await self.save(after)
        return after, choice, before
