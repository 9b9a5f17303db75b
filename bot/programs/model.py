"""A program's steps as moderators write them, and their limits, declared once.

A program is a list of steps in YAML, the shape the plan file's `programs:` takes too::

    - run: say The event starts in 10 minutes
      at: -10m
    - run: function event:start
      at: 0
    - run: function event:round_two
      at: +5m
      after: 2          # only once step 2 ran successfully
      limit: 30m        # wait for step 2 at most until +5m + 30m
      on_failure: skip  # step 2 failed (or the limit passed): skip this one

Each step's command is checked as /schedule checks one, on the server it is started on
(bot.programs.runner); the conditions (`require`, `if_not`, `max_wait`) are the ones a planned
row has (bot.minecraft.conditions). `at` is an offset from the program's start, read with the
durations /schedule reads (bot.times.when.parse_duration): elapsed time, so a step `+2h` runs two
real hours after the start even across a change of the clocks.

`on_failure` answers for a step with `after` what happens when that step failed, or did not
succeed within `limit`: `stop` cancels this and every remaining step, `skip` skips this one,
`continue` (the default) runs it anyway at its offset.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_PROGRAM_NAME",
    "MAX_PROGRAM_TEXT",
    "MAX_STEPS",
    "OnFailure",
    "ProgramName",
    "Step",
    "check_name",
    "comment_cut",
    "commented_runs",
    "limit_seconds",
    "offset_seconds",
    "parse_steps",
    "steps_json",
    "steps_of_json",
    "steps_yaml",
    "value_node",
]

import json
import re
from typing import Annotated, Any, Final, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic import ValidationError as PydanticError

from bot.errors import ValidationError, naming
from bot.i18n import Lazy, lazy, refusals
from bot.minecraft.conditions import parse_conditions
from bot.minecraft.pack_input import MAX_ID
from bot.minecraft.task_fields import Command, IfNot, MaxWait, Player, Require, TimeText
from bot.times.when import parse_duration

MAX_STEPS: Final = 30
# a step's row's task id is "<name>.<run>.<step>": the name leaves room for the rest
MAX_PROGRAM_NAME: Final = MAX_ID - 24
MAX_PROGRAM_TEXT: Final = 6000  # the longest text one Discord option holds
MAX_OFFSET: Final = 7 * 86400  # a program is an evening, a week at most
DEFAULT_LIMIT: Final = "1h"  # how long a step waits for its `after` step by default
_NAME = re.compile(r"[A-Za-z0-9_.+-]+")

ProgramName = Annotated[str, Field(min_length=1, max_length=MAX_PROGRAM_NAME)]
OnFailure = Literal["stop", "skip", "continue"]


def check_name(name: str) -> str:
    """A program's name: a word as a task id is one (letters, digits, `_ . + -`)."""
    if not _NAME.fullmatch(name) or len(name) > MAX_PROGRAM_NAME:
        raise ValidationError(
            lazy(
                "The program name {name} is not a word: use 1 to {n} letters, digits, '_', "
                "'.', '+' or '-'.",
                name=repr(name),
                n=MAX_PROGRAM_NAME,
            ),
            field="name",
        )
    return name


def offset_seconds(text: str) -> int:
    """`-10m`, `0`, `+30m`, `1h 30m` as seconds from the program's start (negative: before)."""
    cleaned = text.strip()
    sign = -1 if cleaned.startswith("-") else 1
    body = cleaned.lstrip("+-").strip()
    if body in ("0", "0s", "0m"):
        return 0
    seconds = sign * parse_duration(body, lazy("The offset"))
    if abs(seconds) > MAX_OFFSET:
        raise ValidationError(lazy("The offset {text} is more than a week.", text=repr(text)))
    return seconds


def limit_seconds(text: str | None) -> int:
    return parse_duration(text or DEFAULT_LIMIT, lazy("The limit"))


class Step(BaseModel):
    """One step: `run` at `at` from the start; with `after`, only once that step (numbered
    from 1) succeeded, waiting for it at most `limit` past its own offset."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run: Command
    at: TimeText = "0"
    after: int | None = Field(default=None, ge=1, le=MAX_STEPS)
    limit: TimeText | None = None
    require: Require | None = None
    if_not: IfNot | None = None
    max_wait: MaxWait | None = None
    as_player: Player | None = None
    on_failure: OnFailure = "continue"

    @field_validator("at", mode="before")
    @classmethod
    def _number_offset(cls, value: Any) -> Any:
        # YAML reads `at: 0` as a number
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @model_validator(mode="after")
    def _checked(self) -> Step:
        # bot's ValidationError passes through pydantic as it is: parse_steps names the step
        with naming("at"):
            offset_seconds(self.at)
        if self.limit is not None:
            if self.after is None:
                raise ValidationError(
                    lazy("`limit` is how long to wait for the `after` step: give `after` too."),
                    field="limit",
                )
            with naming("limit"):
                limit_seconds(self.limit)
        if self.on_failure != "continue" and self.after is None:
            raise ValidationError(
                lazy(
                    "`on_failure` says what to do when the `after` step failed: give `after` too."
                ),
                field="on_failure",
            )
        parse_conditions(self.require, self.if_not, self.max_wait)
        return self

    @property
    def offset(self) -> int:
        return offset_seconds(self.at)

    def conditions(self) -> dict[str, str]:
        given = {"require": self.require, "if_not": self.if_not, "max_wait": self.max_wait}
        return {k: v for k, v in given.items() if v is not None}


def _step(number: int, item: object) -> Step:
    if not isinstance(item, dict):
        raise ValidationError(
            lazy("Step {n} is not a mapping: write it as `- run: ...` with `at: ...`.", n=number),
            field="steps",
        )
    try:
        return Step.model_validate(item)
    except PydanticError as exc:
        first = exc.errors()[0]
        said = refusals.explain(first, Step)
        raise ValidationError(
            lazy("Step {n}: {problem}", n=number, problem=said), field="steps"
        ) from None
    except ValidationError as exc:  # a check of ours inside the validator (offset, conditions)
        where = f"`{exc.field}`: " if exc.field and f"`{exc.field}`" not in str(exc.text) else ""
        raise ValidationError(
            lazy("Step {n}: {problem}", n=number, problem=where + str(exc.text)), field="steps"
        ) from None


def value_node(mapping: yaml.Node | None, key: str) -> yaml.Node | None:
    """The node of `key`'s value in a composed YAML mapping (None: not a mapping, or no key)."""
    if not isinstance(mapping, yaml.MappingNode):
        return None
    found = [v for k, v in mapping.value if isinstance(k, yaml.ScalarNode) and k.value == key]
    return found[0] if found else None


def commented_runs(steps: yaml.Node | None, text: str) -> list[tuple[int, int]]:
    """(step number, line) of each step whose unquoted `run:` has a `#` after it on its line,
    `steps` being the steps' list as composed from `text`: YAML read the rest as a comment,
    cutting the command short (`run: scoreboard players add #wave game 1` would lose its fake
    player)."""
    found: list[tuple[int, int]] = []
    if not isinstance(steps, yaml.SequenceNode):
        return found
    for number, step in enumerate(steps.value, 1):
        run = value_node(step, "run")
        if isinstance(run, yaml.ScalarNode) and run.style is None:
            end = run.end_mark.index
            line_end = text.find("\n", end)
            if "#" in text[end : len(text) if line_end < 0 else line_end]:
                found.append((number, run.end_mark.line + 1))
    return found


def comment_cut(line: int) -> Lazy:
    """The refusal of a command YAML cut at a comment (commented_runs) on `line`."""
    return lazy(
        "Line {line}: YAML reads ` #` as the start of a comment, which would cut the command "
        'short: put the command in quotes (run: "...").',
        line=line,
    )


def parse_steps(text: str) -> list[Step]:
    """The steps of a program's YAML text, each checked; ValidationError naming the step and
    its field otherwise."""
    if len(text) > MAX_PROGRAM_TEXT:
        raise ValidationError(
            lazy("The steps are longer than {n} characters.", n=MAX_PROGRAM_TEXT), field="steps"
        )
    try:
        cut = commented_runs(yaml.compose(text, Loader=yaml.SafeLoader), text)
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        raise ValidationError(
            lazy(
                "The steps are not readable YAML (line {line}): {problem}.",
                line=line,
                problem=getattr(exc, "problem", None) or str(exc),
            ),
            field="steps",
        ) from None
    for _step_number, line in cut:
        raise ValidationError(comment_cut(line), field="steps")
    if not isinstance(loaded, list) or not loaded:
        raise ValidationError(
            lazy("The steps must be a list: each a line `- run: <command>` with `at: <offset>`."),
            field="steps",
        )
    if len(loaded) > MAX_STEPS:
        raise ValidationError(lazy("A program has at most {n} steps.", n=MAX_STEPS), field="steps")
    steps = [_step(i, item) for i, item in enumerate(loaded, 1)]
    for number, step in enumerate(steps, 1):
        if step.after is not None and step.after >= number:
            raise ValidationError(
                lazy(
                    "Step {n}: `after: {after}` must name an earlier step (1 to {last}).",
                    n=number,
                    after=step.after,
                    last=number - 1,
                ),
                field="steps",
            )
    return steps


def steps_yaml(steps: list[dict[str, Any]]) -> str:
    """Steps given as mappings (a form's rows, a plan file's entry) as the YAML text
    parse_steps reads; no line folded, so each command reads back as it was."""
    return yaml.safe_dump(
        steps, sort_keys=False, allow_unicode=True, default_flow_style=False, width=1 << 30
    )


def steps_json(steps: list[Step]) -> str:
    """The steps as stored: the fields given, in order."""
    return json.dumps([s.model_dump(exclude_defaults=True) for s in steps])


def steps_of_json(text: str) -> list[Step]:
    return [Step.model_validate(item) for item in json.loads(text)]
