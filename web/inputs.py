"""What the dashboard takes from a request, and how it refuses what does not fit: bodies over
the size limit (413), query and path values out of range, and request bodies that do not fit
their model (400 naming the field). Nothing a client sends may end in a 500.

Quart enforces ``MAX_CONTENT_LENGTH`` only where a route reads the body (and a form parser
reads none of a ``text/plain`` body), so :func:`limit_body` reads every body of a write before
the route runs: over the limit it is a 413 for every route, whatever the content type.
"""

from __future__ import annotations

__all__ = [
    "MAX_ID",
    "body_refusal",
    "check_list",
    "limit_body",
    "page_number",
    "refusal",
    "refuse_unknown",
    "too_large",
    "whole_number",
]

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError
from quart import current_app, request
from werkzeug.exceptions import RequestEntityTooLarge

from bot import errors
from bot.i18n import N_, _, refusals
from bot.i18n.formats import number
from bot.operations.reads import LISTS
from web.context import WebError

MAX_ID = 2**63 - 1  # Discord ids, audit row ids and schedule numbers are SQLite integers
BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


async def limit_body() -> None:
    """Before every request: a body over the limit is refused (413) before any route or rate
    limit reads a field of it. A declared length is refused without reading; an undeclared
    (chunked) one is read up to the limit, which Quart stops at."""
    limit: int = current_app.config["MAX_CONTENT_LENGTH"]
    if request.content_length is not None and request.content_length > limit:
        raise RequestEntityTooLarge()
    if request.method in BODY_METHODS:
        data = await request.get_data(cache=True, as_text=False)  # kept for the route's parser
        if request.is_json and isinstance(data, bytes):
            try:
                data.decode()  # Quart's JSON parser decodes first, outside its own error path
            except UnicodeDecodeError:
                raise WebError(400, _("The request body is not UTF-8 text.")) from None


def too_large() -> str:
    limit: int = current_app.config["MAX_CONTENT_LENGTH"]
    return _("The request is too large: at most {size} bytes are accepted.", size=number(limit))


def whole_number(text: str, field: str, what: str, *, low: int = 1, high: int = MAX_ID) -> int:
    """``text`` as a whole number from ``low`` to ``high``; else WebError(400) naming ``field``
    (``what``, marked with N_, names it in the sentence)."""
    try:
        value = int(text.strip())
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise WebError(
            400,
            _(
                "The {what} must be a whole number from {low} to {high} (got {text}).",
                what=_(what),
                low=number(low),
                high=number(high),
                text=repr(text[:40]),
            ),
            field=field,
        )
    return value


def _field(loc: tuple[int | str, ...]) -> str | None:
    return ".".join(str(part) for part in loc) or None


def refuse_unknown(form: Mapping[str, object], known: Iterable[str]) -> None:
    """errors.ValidationError naming a form's first field that `known` lacks (nothing done)."""
    names = list(known)
    extra = [key[:40] for key in form if key not in names]
    if extra:
        raise errors.ValidationError(refusals.unknown_field(extra[0], names), field=extra[0])


def body_refusal(error: Exception, model: Any = None) -> tuple[str, str | None]:
    """A body that does not fit its model: the first fault as a sentence (the words every face
    uses, bot.i18n.refusals), and its field."""
    if not isinstance(error, ValidationError) or not error.errors():
        return _("The request body must be a JSON object."), None
    first = error.errors()[0]
    field = _field(first["loc"])
    if field is None:
        text = _("The request body must be a JSON object.")
    else:
        text = refusals.explain(first, model)
    return text, field


def refusal(exc: errors.BotError, field: str | None = None) -> tuple[dict[str, Any], int]:
    """An API's refusal with the sentence and the input at fault: the error's own field, else
    `field` for what the route checks (the command's text, a task id); 403 when the caller's
    rank is short (an operation's own check), else 400."""
    if isinstance(exc, errors.ValidationError) and exc.field is not None:
        field = exc.field
    body: dict[str, Any] = {"error": str(exc), "field": field}
    if isinstance(exc, errors.CommandParseError):
        body.update(caret=exc.caret(), column=exc.column, field="run")
    return body, 403 if isinstance(exc, errors.NotAllowed) else 400


def check_list(which: str) -> None:
    """A list's name from a path (bot.operations.reads.LISTS); else WebError(404) naming them."""
    if which not in LISTS:
        raise WebError(
            404, _("{list} is not a list: queue, offline, paused or planned.", list=repr(which))
        )


def page_number(high: int) -> int:
    """`?page=`, a whole number from 1 to `high` (a page past the end shows the last)."""
    return whole_number(request.args.get("page", "1"), "page", N_("page number"), high=high)
