"""What an import does with each entry of a plan file: add it, change what the server has under
its name, or leave it; and how a refused entry is said.

Entries are matched by their name in their list: a planned row by its id (unique on a server),
a game-time task by its id, a Discord event by its name. The pack keeps several tasks of one id
and a guild several events of one name, so those are matched as a group: the server's ones of
that name are left when the file has the same ones, else all are replaced by the file's.
"""

from __future__ import annotations

__all__ = ["Step", "Verdict", "grouped", "label", "refused_as"]

import contextlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from pydantic import BaseModel

from bot import errors
from bot.i18n import _

Verdict = Literal["add", "change", "leave"]
E = TypeVar("E", bound=BaseModel)  # an entry of the file
H = TypeVar("H")  # what the server has under that name (a row, a task's entry, an event row)


@dataclass(frozen=True, slots=True)
class Step(Generic[E, H]):
    """One entry and what the import does with it; `replaces`: what a change cancels before
    the entry is made (given on the first entry of its name only), each as an entry (made again
    when the import is undone) and as the server holds it."""

    verdict: Verdict
    label: str
    entry: E
    replaces: tuple[tuple[E, H], ...] = ()


def label(kind: str, number: int, name: str) -> str:
    """`tasks[2] (halt)`: how a refusal and the import's lines name an entry."""
    return f"{kind}[{number}] ({name})"


def _canonical(entry: BaseModel) -> str:
    return json.dumps(entry.model_dump(), sort_keys=True)


def grouped(
    kind: str,
    entries: Sequence[E],
    have: Mapping[str, Sequence[tuple[E, H]]],
    name: Callable[[E], str],
    key: Callable[[str], str] = str,
    same: Callable[[E], BaseModel] = lambda e: e,
) -> list[Step[E, H]]:
    """The steps of one list: the entries of each name against the server's (`have`: by
    `key` of the name, each as an entry and as the server holds it); `same` makes two entries
    comparable (the written form of what the server would make of it)."""
    numbers: dict[str, list[int]] = {}
    for number, entry in enumerate(entries):
        numbers.setdefault(key(name(entry)), []).append(number)
    steps: dict[int, Step[E, H]] = {}
    for held, mine in numbers.items():
        old = have.get(held, ())
        new = sorted(_canonical(same(entries[n])) for n in mine)
        verdict: Verdict = (
            "add"
            if not old
            else "leave"
            if new == sorted(_canonical(same(e)) for e, _o in old)
            else "change"
        )
        for place, n in enumerate(mine):
            replaces = tuple(old) if verdict == "change" and place == 0 else ()
            steps[n] = Step(verdict, label(kind, n + 1, name(entries[n])), entries[n], replaces)
    return [steps[n] for n in range(len(entries))]


@contextlib.contextmanager
def refused_as(entry: str) -> Iterator[None]:
    """A check's refusal of a plan file's entry, as the import says it: the entry named, and
    that nothing was changed (a rank refusal stays as it is)."""
    try:
        yield
    except errors.NotAllowed:
        raise
    except errors.BotError as exc:
        raise errors.ValidationError(
            _(
                "The plan file's entry {entry} is refused: {why} Nothing was changed.",
                entry=entry,
                why=exc,
            )
        ) from None
