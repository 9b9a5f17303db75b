"""The schedule form of a server's queue page, read into the request it stands for: /schedule of
either kind (after game time, or at a wall-clock time), /schedule_dynamic (a new unique id with
`prefix`) or /schedule on a group (`target`). A field the form does not have is refused, named.

The form's selects always send their choice, so a choice only counts with the field it goes
with: `unit` with a delay, `timezone` with `when` or `repeat`, the condition choices with a
`require` (bot.operations refuses the rest: the two kinds mixed, an announce without a time).
"""

from __future__ import annotations

__all__ = [
    "FIELDS",
    "ScheduleForm",
    "condition_fields",
    "form_context",
    "groups",
    "preview_rows",
    "read_form",
]

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from bot import errors
from bot.config import ALL_SERVERS
from bot.i18n import _
from web.actions import DynamicFields, ScheduleRequest
from web.context import state
from web.zones import known_zones, reader_zone, time_text

if TYPE_CHECKING:
    from bot.operations.schedule import Preview
    from bot.services import ServerServices

NUMBERS = ("time", "at", "every", "retry", "retry_delay")
TEXTS = ("id", "as_player", "when", "repeat", "announce")
# what the form sends: the request's fields, and its own (the buttons, the target, the prefix)
FIELDS = (
    "run",
    "time",
    "unit",
    "at",
    "every",
    "id",
    "prefix",
    "retry",
    "retry_delay",
    "as_player",
    "target",
    "when",
    "repeat",
    "timezone",
    "announce",
    "require",
    "if_not",
    "max_wait",
    "after_wait",
    "preview",
)
# what a new unique id leaves to its defaults (field, default): /schedule_dynamic has none of it
PLAIN = (
    ("id", None),
    ("at", None),
    ("every", None),
    ("retry", 0),
    ("retry_delay", 1),
    ("as_player", None),
    ("when", None),
    ("repeat", None),
    ("announce", None),
    ("require", None),
)


@dataclass(frozen=True)
class ScheduleForm:
    """What the form asks for: `request` (always, checked), and `dynamic` when it asks for a
    new unique id, `group` when it names a group of servers, `preview` for the Preview button."""

    request: ScheduleRequest
    dynamic: DynamicFields | None = None
    group: str | None = None
    preview: bool = False


def _number(form: Mapping[str, str], key: str) -> int | None:
    text = (form.get(key) or "").strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise errors.ValidationError(
            _("`{field}` must be a whole number, not {text}.", field=key, text=repr(text[:40])),
            field=key,
        ) from None


def condition_fields(form: Mapping[str, str]) -> dict[str, str]:
    """The condition fields: `if_not` and `after_wait` only count with a `require`, and
    `after_wait` only with a wait."""
    require = (form.get("require") or "").strip()
    if not require:
        return {}
    found = {"require": require}
    if form.get("if_not") == "wait":
        found["if_not"] = "wait"
        found["max_wait"] = (form.get("max_wait") or "").strip()
        found["after_wait"] = form.get("after_wait") or "skip"
    elif (form.get("max_wait") or "").strip():
        found["max_wait"] = form["max_wait"].strip()  # refused, naming it
    return found


def _fields(form: Mapping[str, str]) -> dict[str, object]:
    """The request's fields the form gives (blank ones left to the request's defaults)."""
    data: dict[str, object] = {"run": (form.get("run") or "").strip().removeprefix("/")}
    for key in NUMBERS:
        if (value := _number(form, key)) is not None:
            data[key] = value
    for key in TEXTS:
        if text := (form.get(key) or "").strip():
            data[key] = text
    if "time" in data and form.get("unit"):
        data["unit"] = form["unit"]
    if ("when" in data or "repeat" in data) and (zone := (form.get("timezone") or "").strip()):
        data["timezone"] = zone
    return {**data, **condition_fields(form)}


def read_form(form: Mapping[str, str], server: str) -> ScheduleForm:
    """The form's request on `server` (the page's); errors.ValidationError naming the field
    at fault, nothing sent."""
    unknown = [key for key in form if key not in FIELDS]
    if unknown:
        raise errors.ValidationError(
            _(
                "Unknown field `{field}`: this request takes {fields}.",
                field=unknown[0][:40],
                fields=", ".join(FIELDS),
            ),
            field=unknown[0][:40],
        )
    data = _fields(form)
    request = ScheduleRequest.checked(data)
    prefix = (form.get("prefix") or "").strip()
    target = (form.get("target") or "").strip()
    group = target if target and target != server else None
    if prefix:
        given = next((key for key, default in PLAIN if data.get(key, default) != default), None)
        if given is not None or group is not None:
            field = given or "target"
            raise errors.ValidationError(
                _(
                    "An id prefix makes a new unique id for a plain delayed command: leave "
                    "`{field}` out, or the prefix.",
                    field=field,
                ),
                field=field,
            )
        dynamic = DynamicFields.checked(
            {"run": request.run, "time": request.time, "unit": request.unit, "prefix": prefix}
        )
        return ScheduleForm(request, dynamic=dynamic, preview=bool(form.get("preview")))
    return ScheduleForm(request, group=group, preview=bool(form.get("preview")))


def groups() -> list[str]:
    """The groups a form may name as its target: `all`, then DOOM_SERVER_GROUPS'."""
    return [ALL_SERVERS, *sorted(state().services.settings.server_groups)]


async def form_context(server: ServerServices) -> dict[str, Any]:
    """What the form shows besides its fields: the zones to choose from (the reader's
    preselected), the groups, and the server's game tick now, for `at` (None when it cannot be
    read; the tick alone, as the lists read the pack: /time's TPS may wait a second)."""
    try:
        tick: int | None = await server.pack.get_time()
    except errors.BotError:
        tick = None
    return {
        "zones": known_zones(),
        "reader_zone": reader_zone().key,
        "groups": groups(),
        "tick": tick,
    }


def preview_rows(shown: Preview) -> list[dict[str, str]]:
    """The previewed runs as the page lists them: in the request's zone, the zone named."""
    zone = ZoneInfo(shown.timezone)
    return [{"at": t.isoformat(), "text": time_text(t, zone=zone)} for t in shown.runs]
