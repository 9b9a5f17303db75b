"""Why a request was refused, in the words of the person who typed it.

pydantic explains a refusal in its own English ("Input should be greater than or equal to 0",
"Extra inputs are not permitted"); every face (Discord, the console, the API, the plan file)
turns its first fault into a sentence here instead: the field as the reader named it, what it
allows (read from the model: its bounds, its choices, its fields), and the nearest valid word
when the reader's is a typo of one.
"""

from __future__ import annotations

__all__ = ["Noun", "explain", "model_named", "nearest", "unknown_field"]

import types
from collections.abc import Iterable
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import ErrorDetails
from rapidfuzz import process
from rapidfuzz.distance import OSA

from bot.i18n import _
from bot.i18n.formats import number

# what the reader calls a model's names: a request's fields (the API), a file's keys
Noun = Literal["field", "key"]

_WHOLE = frozenset({"int_parsing", "int_type", "int_from_float", "int_parsing_size"})
_NUMBER = frozenset({"float_parsing", "float_type", "finite_number"})
_BOUND = frozenset({"greater_than", "greater_than_equal", "less_than", "less_than_equal"})
_LENGTH = frozenset({"string_too_short", "string_too_long", "too_short", "too_long"})


def nearest(word: str, names: Iterable[str]) -> str | None:
    """The name `word` is a typo of: one edit away for a short name, two for a longer one (a
    swap of two letters counts one: `sya` -> `say`); None when none is that near."""
    candidates = [n for n in names if n != word]
    found = process.extract(word, candidates, scorer=OSA.distance, score_cutoff=2, limit=None)
    near = [
        (distance, name[:1] != word[:1], str(name))  # a tie goes to the same first letter
        for name, distance, _index in found
        if 0 < distance <= (1 if len(name) <= 3 else 2)
    ]
    return min(near)[2] if near else None


def model_named(title: str) -> type[BaseModel] | None:
    """The bot's request model a pydantic error names (its title is the class's name): where a
    face built the request itself, the error is all it has to say the model's rules from."""
    found: list[type[BaseModel]] = []
    todo = list(BaseModel.__subclasses__())
    while todo and len(found) < 1000:  # bounded: the bot has a few dozen models
        model = todo.pop()
        found.append(model)
        todo.extend(model.__subclasses__())
    return next((m for m in found if m.__name__ == title and m.__module__.startswith("bot.")), None)


def _bare(annotation: Any) -> Any:
    """The type inside Annotated[...] and Optional[...] (`Literal[...] | None` -> the Literal)."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            inner = [a for a in get_args(annotation) if a is not type(None)]
            if len(inner) != 1:
                return annotation
            annotation = inner[0]
        else:
            return annotation


def _model_at(model: Any, loc: tuple[int | str, ...]) -> Any:
    """The model that holds the last part of `loc` (a plan file's entry, for
    `planned.1.repat`), or None when the path leaves the models."""
    for part in loc:
        if isinstance(part, int):
            continue
        info = getattr(model, "model_fields", {}).get(part)
        if info is None:
            return None
        inner = _bare(info.annotation)
        if get_origin(inner) is list:
            inner = _bare(get_args(inner)[0])
        model = inner
    return model


def _choices(model: Any, name: str) -> tuple[str, ...]:
    info = getattr(model, "model_fields", {}).get(name)
    if info is None:
        return ()
    inner = _bare(info.annotation)
    return tuple(str(a) for a in get_args(inner)) if get_origin(inner) is Literal else ()


def _limits(model: Any, name: str) -> dict[str, Any]:
    """The constraints set on a model's field (an Interval names all four bounds, the unset
    ones None: they must not hide a bound another rule set)."""
    found: dict[str, Any] = {}
    info = getattr(model, "model_fields", {}).get(name)
    rules = list(info.metadata) if info is not None else []
    if info is not None:  # an Annotated type inside `... | None` keeps its rules there
        rules += _annotated_rules(info.annotation)
    for rule in rules:
        for key in ("ge", "gt", "le", "lt", "min_length", "max_length"):
            value = getattr(rule, key, None)
            if value is not None:
                found[key] = value
    return found


def _annotated_rules(annotation: Any) -> list[Any]:
    """The constraints of the Annotated types in `annotation` (in a union's members too)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        rules: list[Any] = []
        for extra in get_args(annotation)[1:]:
            rules.extend(getattr(extra, "metadata", [extra]))
        return rules
    if origin in (Union, types.UnionType):
        return [r for member in get_args(annotation) for r in _annotated_rules(member)]
    return []


def _bounds(
    model: Any, name: str, ctx: dict[str, Any], *, whole: bool
) -> tuple[Any, Any, bool, bool]:
    """A number's lowest and highest allowed value (the model's, else pydantic's context), and
    whether each is itself excluded (a `gt`/`lt` of a number that need not be whole; a whole
    one's becomes the next whole number in)."""
    rules = {**ctx, **_limits(model, name)}
    low, high = rules.get("ge"), rules.get("le")
    above = below = False
    if low is None and rules.get("gt") is not None:
        low, above = (rules["gt"] + 1, False) if whole else (rules["gt"], True)
    if high is None and rules.get("lt") is not None:
        high, below = (rules["lt"] - 1, False) if whole else (rules["lt"], True)
    return low, high, above, below


def _whole(model: Any, name: str, default: bool) -> bool:
    """Whether the field takes whole numbers only (its annotation says, else the fault)."""
    info = getattr(model, "model_fields", {}).get(name)
    inner = _bare(info.annotation) if info is not None else None
    if inner is int:
        return True
    return False if inner is float else default


def _lengths(model: Any, name: str, ctx: dict[str, Any]) -> tuple[Any, Any]:
    rules = {**ctx, **_limits(model, name)}
    return rules.get("min_length"), rules.get("max_length")


def _got(value: object) -> str:
    return repr(value)[:40]


def explain(
    error: ErrorDetails, model: Any = None, *, noun: Noun = "field", label: str | None = None
) -> str:
    """One pydantic fault of `model` as a sentence naming `label` (default: its dotted
    location), what the field allows and, for a mistyped name or choice, the nearest one."""
    loc = tuple(error["loc"])
    name = str(loc[-1]) if loc else ""
    field = label or ".".join(str(part) for part in loc)
    kind = error["type"]
    ctx: dict[str, Any] = dict(error.get("ctx") or {})
    got = error.get("input")
    holder = _model_at(model, loc[:-1])
    if kind == "extra_forbidden":
        return _unknown(field, name, list(getattr(holder, "model_fields", {})), noun)
    choices = _choices(holder, name)
    if kind == "missing":
        if choices:
            return _(
                "`{field}` is missing: one of {choices}.", field=field, choices=", ".join(choices)
            )
        return _("`{field}` is missing.", field=field)
    if kind in ("literal_error", "enum") or choices:
        return _one_of(field, choices or (str(ctx.get("expected", "")),), got)
    if kind in _WHOLE | _NUMBER | _BOUND:
        whole = _whole(holder, name, kind not in _NUMBER)
        return _number_rule(field, *_bounds(holder, name, ctx, whole=whole), got, whole=whole)
    if kind in _LENGTH:
        return _length_rule(field, *_lengths(holder, name, ctx))
    if kind in ("bool_parsing", "bool_type"):
        return _("`{field}` is true or false, not {got}.", field=field, got=_got(got))
    if kind == "string_type":
        return _("`{field}` must be text, not {got}.", field=field, got=_got(got))
    if kind in ("list_type", "tuple_type"):
        return _("`{field}` must be a list.", field=field)
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return _("`{field}` must be a mapping of keys to values.", field=field)
    if kind in ("value_error", "assertion_error") and "error" in ctx:
        return _("`{field}`: {error}", field=field, error=ctx["error"])  # our validator's words
    return _("`{field}` does not take {got}.", field=field, got=_got(got))


def unknown_field(name: str, names: Iterable[str]) -> str:
    """A request's field nobody knows, with the nearest known one (a form's own keys too)."""
    return _unknown(name, name, list(names), "field")


def _unknown(field: str, name: str, names: list[str], noun: Noun) -> str:
    near = nearest(name, names)
    known = ", ".join(names) or "-"
    if noun == "key":
        if near is not None:
            return _(
                "unknown key `{key}`: did you mean `{near}`? (keys: {keys})",
                key=name,
                near=near,
                keys=known,
            )
        return _("unknown key `{key}` (keys: {keys})", key=name, keys=known)
    if near is not None:
        return _(
            "Unknown field `{field}`: did you mean `{near}`? This request takes {fields}.",
            field=field,
            near=near,
            fields=known,
        )
    return _("Unknown field `{field}`: this request takes {fields}.", field=field, fields=known)


def _one_of(field: str, choices: tuple[str, ...], got: object) -> str:
    near = nearest(got, choices) if isinstance(got, str) else None
    if near is not None:
        return _(
            "`{field}` is one of {choices}, not {got}: did you mean `{near}`?",
            field=field,
            choices=", ".join(choices),
            got=_got(got),
            near=near,
        )
    return _(
        "`{field}` is one of {choices}, not {got}.",
        field=field,
        choices=", ".join(choices),
        got=_got(got),
    )


def _number_rule(
    field: str, low: Any, high: Any, above: bool, below: bool, got: object, *, whole: bool
) -> str:
    said = {"field": field, "got": _got(got)}
    if above and high is None:
        return _("`{field}` must be more than {low}, not {got}.", low=number(low), **said)
    if below and low is None:
        return _("`{field}` must be less than {high}, not {got}.", high=number(high), **said)
    if above or below:
        return _(
            "`{field}` must be a number between {low} and {high}, not {got}.",
            low=number(low),
            high=number(high),
            **said,
        )
    if low is not None and high is not None:
        said |= {"low": number(low), "high": number(high)}
        if whole:
            return _("`{field}` must be a whole number from {low} to {high}, not {got}.", **said)
        return _("`{field}` must be a number from {low} to {high}, not {got}.", **said)
    if low is not None:
        return _("`{field}` must be {low} or more, not {got}.", low=number(low), **said)
    if high is not None:
        return _("`{field}` must be {high} or less, not {got}.", high=number(high), **said)
    if whole:
        return _("`{field}` must be a whole number, not {got}.", **said)
    return _("`{field}` must be a number, not {got}.", **said)


def _length_rule(field: str, low: Any, high: Any) -> str:
    if low is not None and high is not None:
        return _(
            "`{field}` must be {low} to {high} characters long.",
            field=field,
            low=number(low),
            high=number(high),
        )
    if high is not None:
        return _(
            "`{field}` must be at most {high} characters long.", field=field, high=number(high)
        )
    return _("`{field}` must not be empty.", field=field)
