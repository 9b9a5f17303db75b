"""Operations declared once, which every face derives its command from.

An :class:`OperationSpec` is an operation's name, one-line summary, request model, rank and
handler. Registered in the core's :class:`Registry` (``ops.registry``), it gets, with no face
code of its own: a console command of its name with the request's fields as options
(console.parse), a slash command the same (``bot.discord.slash.registered``); and
``POST /api/operations/<name>`` with the request as its body, in the OpenAPI document
(``web.api_ops``). :func:`run` checks the rank, validates the request in the words every face
uses, calls the handler and, for a change, records the audit entry.

The handler answers with an :class:`Outcome`: its text (a sentence in the faces' shared markup:
`code`, **bold**, instants as ``<t:N:F>``, which each face renders its own way) and its facts
as data (ids, counts, instants as datetimes), which the JSON API gives as they are.

A name is one word, or two (``plan export``: a group's subcommand, as Discord has them). The
built-in operations are registered too (bot.operations.builtin), with ``face_code``: in Discord
a cog answers them (buttons, embeds, paging) and the API has resource routes for them
(``/api/servers/<name>/tasks``), so neither a slash command nor an operation route is derived
from those; the console and ``GET /api/operations`` read them from here.
"""

from __future__ import annotations

__all__ = [
    "CHOICE_NAMES_KEY",
    "NAME",
    "Done",
    "File",
    "OperationSpec",
    "Outcome",
    "Registry",
    "as_outcome",
    "run",
]

import re
import types
import typing
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel

from bot import errors
from bot.i18n import _
from bot.operations.ranks import Rank
from bot.operations.requests import validated
from bot.operations.sections import Section, section_text

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller

R = TypeVar("R", bound=BaseModel)

# Discord's rule for a command's and an option's name, which the console and the API reuse
NAME = re.compile(r"[a-z0-9_-]{1,32}")
# an operation's name: a command, or a group and its subcommand (`plan export`)
OPERATION_NAME = re.compile(r"[a-z0-9_-]{1,32}(?: [a-z0-9_-]{1,32})?")
SUMMARY = 100  # Discord's limit on a command's description
# the option types every face can take from a person: a word or text, a whole number, a number,
# yes or no, or one of a few words (Literal)
SIMPLE = (str, int, float, bool)
# a Literal field's schema extra under this key maps its values to the names a face shows for
# them (a value that is no word to show a person: "second" is also a unit of time)
CHOICE_NAMES_KEY = "x-choice-names"


@dataclass(frozen=True)
class File:
    """A file an outcome carries (the plan file's export): Discord attaches it, the console
    writes it to its folder, the JSON API gives its text."""

    name: str
    content: bytes


@dataclass(frozen=True)
class Outcome:
    """What an operation did or found: `text` for a person (the faces' shared markup), the
    read's `sections` after it (bot.operations.sections), `facts` for a program (JSON values,
    instants in ISO 8601), `files` to hand over."""

    text: str
    facts: Mapping[str, Any] = field(default_factory=dict)
    files: tuple[File, ...] = ()
    sections: tuple[Section, ...] = ()

    @property
    def full_text(self) -> str:
        """The sentence and the sections, as lines of the shared markup (one message)."""
        return "\n\n".join(p for p in (self.text, *map(section_text, self.sections)) if p)


def as_outcome(said: str | Outcome) -> Outcome:
    """A handler's answer as an outcome: a plain sentence is one with no facts."""
    return said if isinstance(said, Outcome) else Outcome(said)


@dataclass(frozen=True)
class OperationSpec(Generic[R]):
    """One operation: `handler(ops, caller, request)` returns its :class:`Outcome` (or just
    the sentence). `changes`: it changes something, so :func:`run` records the audit entry
    after it succeeds, unless `audited` says the handler records its own (a built-in
    operation's entry names the server it changed). `face_code`: the Discord cogs and the API's
    own routes answer it, so no slash command or operation route is derived from the spec."""

    name: str
    summary: str
    request: type[R]
    rank: Rank
    handler: Callable[[Operations, Caller, R], Awaitable[str | Outcome]]
    changes: bool = False
    audited: bool = False
    face_code: bool = False
    # the question a person answers before it runs (None: nothing to ask this time); a
    # program's call through the API is its own confirmation
    confirm: Callable[[Operations, Caller, R], Awaitable[str | None]] | None = None
    plugin: str = ""  # the plugin that brought it (set by the host), which its audit names


@dataclass(frozen=True)
class Done(Outcome):
    """An operation's outcome with its name and the request as given."""

    name: str = ""
    request: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Option:
    """One option a person gives an operation: `name` as typed (the field's, or the file
    option's: `file:` fills `document` with a file's text), `kind` the type it is read as,
    `choices` its words (a Literal)."""

    name: str
    field: str
    kind: type
    required: bool
    description: str = ""
    choices: tuple[str, ...] = ()
    file: bool = False


# a field's json_schema_extra key (an OpenAPI extension): the option that reads a file
FILE_OPTION = "x-file-option"


def options(spec: OperationSpec[Any]) -> list[Option]:
    """The spec's options, in its request's field order, required ones first."""
    found = []
    for name, info in spec.request.model_fields.items():
        kind = option_type(info.annotation)
        choices: tuple[str, ...] = ()
        if typing.get_origin(kind) is Literal:
            choices, kind = tuple(typing.get_args(kind)), str
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        from_file = extra.get(FILE_OPTION)
        found.append(
            Option(
                str(from_file) if from_file else name,
                name,
                kind,
                info.is_required(),
                info.description or "",
                choices,
                bool(from_file),
            )
        )
    return sorted(found, key=lambda o: not o.required)


def option_type(annotation: Any) -> Any:
    """The option's type of a request field's annotation (`X | None` is X: whether an option
    may be left out is the field's default's business); ValueError for a type a face cannot ask
    a person for."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(inner) != 1:
            raise ValueError(f"a field of {annotation} is not one type")
        annotation = inner[0]
    if typing.get_origin(annotation) is Annotated:  # a type with its limits (task_fields)
        annotation = typing.get_args(annotation)[0]
    if annotation in SIMPLE:
        return annotation
    if typing.get_origin(annotation) is Literal and all(
        isinstance(a, str) for a in typing.get_args(annotation)
    ):
        return annotation
    raise ValueError(f"{annotation} is not str, int, float, bool or a Literal of words")


class Registry:
    """The registered operations by name; :meth:`add` checks a spec when it is added, so a
    face never meets one it cannot offer."""

    def __init__(self) -> None:
        self._specs: dict[str, OperationSpec[Any]] = {}

    def add(self, spec: OperationSpec[R]) -> OperationSpec[R]:
        if not OPERATION_NAME.fullmatch(spec.name):
            raise ValueError(
                f"{spec.name!r}: a name is one or two words of 1-32 of a-z, 0-9, - and _"
            )
        if spec.name in self._specs:
            raise ValueError(f"{spec.name!r} is registered already")
        if not 0 < len(spec.summary) <= SUMMARY:
            raise ValueError(f"{spec.name!r}: the summary is 1 to {SUMMARY} characters")
        for option, info in spec.request.model_fields.items():
            if not NAME.fullmatch(option):
                raise ValueError(f"{spec.name!r}: option {option!r} is not a Discord option name")
            try:
                option_type(info.annotation)
            except ValueError as exc:
                raise ValueError(f"{spec.name!r}: option {option!r}: {exc}") from None
        self._specs[spec.name] = spec
        return spec

    def remove(self, name: str) -> None:
        self._specs.pop(name, None)

    def get(self, name: str) -> OperationSpec[Any] | None:
        return self._specs.get(name)

    def __iter__(self) -> Iterator[OperationSpec[Any]]:
        """In the order they were added: the built-ins as Discord lists them, then the
        plugins' (a group's subcommands in their order)."""
        return iter(list(self._specs.values()))

    def __len__(self) -> int:
        return len(self._specs)


def checked(
    ops: Operations, caller: Caller, name: str, data: Mapping[str, object]
) -> tuple[OperationSpec[Any], BaseModel]:
    """The named operation and its request, once the caller's rank and the request are checked
    (a face that asks a question first, :attr:`OperationSpec.confirm`, asks it between this and
    :func:`perform`); NotFound, NotAllowed or ValidationError with a sentence otherwise."""
    spec = ops.registry.get(name)
    if spec is None:
        known = ", ".join(s.name for s in ops.registry) or _("none")
        raise errors.NotFound(
            _("There is no operation {name} (known: {known}).", name=repr(name), known=known)
        )
    ops.require(caller, spec.rank, f"/{spec.name}")
    return spec, validated(spec.request, data)


async def perform(ops: Operations, caller: Caller, spec: OperationSpec[R], request: R) -> Done:
    """A checked request run: the handler, then the audit entry of a change."""
    outcome = as_outcome(await spec.handler(ops, caller, request))
    given = request.model_dump(exclude_defaults=True)
    if spec.changes and not spec.audited:
        said = {**given, "plugin": spec.plugin} if spec.plugin else given
        await ops.audit(caller, None, spec.name, said, outcome.full_text)
    return Done(
        outcome.text, outcome.facts, outcome.files, outcome.sections, name=spec.name, request=given
    )


async def run(ops: Operations, caller: Caller, name: str, data: Mapping[str, object]) -> Done:
    """The named operation for this caller, checked and performed."""
    spec, request = checked(ops, caller, name, data)
    return await perform(ops, caller, spec, request)
