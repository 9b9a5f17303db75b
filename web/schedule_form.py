"""The schedule form of a server's or a group's queue page, read into the request it stands for:
/schedule of either kind (after game time, or at a wall-clock time) or /schedule_dynamic (a new
unique id with `prefix`), on the page's server or on a group (`target`, or the group's page). A
field the form does not have is refused, named.

The form's selects always send their choice, so a choice only counts with the field it goes
with: `unit` with a delay, `timezone` with `when` or `repeat`, the DST policy with `repeat`, the
condition choices with a `require` (bot.operations refuses the rest: the two kinds mixed, an
announce without a time).
"""

from __future__ import annotations

__all__ = [
    "FIELDS",
    "ScheduleForm",
    "Sent",
    "condition_fields",
    "form_context",
    "preview_rows",
    "read_form",
    "submit",
]

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from bot import errors
from bot.i18n import _
from web import actions
from web.actions import DynamicFields, ScheduleRequest
from web.context import operations
from web.inputs import refuse_unknown
from web.picker import Choice, choices
from web.zones import reader_zone, time_text, zone_groups

if TYPE_CHECKING:
    from bot.operations.schedule import Preview
    from bot.services import ServerServices
    from web.context import WebUser

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
    "dst_repeated",
    "dst_skipped",
    "require",
    "if_not",
    "max_wait",
    "after_wait",
    "on_doubt",
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
    ("dst_repeated", None),
    ("dst_skipped", None),
    ("require", None),
    ("on_doubt", None),
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
    if "repeat" in data:  # blank: the default; a value the request does not know is refused
        for key in ("dst_repeated", "dst_skipped"):
            if choice := (form.get(key) or "").strip():
                data[key] = choice
    # the select always sends its choice: the default (skip) is left to the request's default,
    # anything but skip or run is refused by the request, named
    if (doubt := (form.get("on_doubt") or "").strip()) and doubt != "skip":
        data["on_doubt"] = doubt
    return {**data, **condition_fields(form)}


def read_form(
    form: Mapping[str, str], server: str | None, group: str | None = None
) -> ScheduleForm:
    """The form's request on the page's `server`, or on the page's `group` (a group's page), or
    on the group `target` names; errors.ValidationError naming the field at fault, nothing
    sent."""
    refuse_unknown(form, FIELDS)
    data = _fields(form)
    request = ScheduleRequest.checked(data)
    prefix = (form.get("prefix") or "").strip()
    target = (form.get("target") or "").strip() or server or group
    on_group = target if target != server else None
    preview = bool(form.get("preview"))
    if prefix:
        given = next((key for key, default in PLAIN if data.get(key, default) != default), None)
        if given is not None:
            raise errors.ValidationError(
                _(
                    "An id prefix makes a new unique id for a plain delayed command: leave "
                    "`{field}` out, or the prefix.",
                    field=given,
                ),
                field=given,
            )
        dynamic = DynamicFields.checked(
            {"run": request.run, "time": request.time, "unit": request.unit, "prefix": prefix}
        )
        return ScheduleForm(request, dynamic=dynamic, group=on_group, preview=preview)
    return ScheduleForm(request, group=on_group, preview=preview)


def check_target(asked: ScheduleForm) -> None:
    """A `target` that is neither the page's server nor a group is refused, named."""
    if asked.group is not None and operations().group(asked.group) is None:
        raise errors.ValidationError(
            _("{name} is not a server group.", name=repr(asked.group)), field="target"
        )


async def preview(user: WebUser, asked: ScheduleForm, server: ServerServices | None) -> Preview:
    """The next runs of the form's wall-clock request: on the page's server, or on a group's
    page on its first server (each server of a group would have the same times)."""
    check_target(asked)
    if server is None:
        found = operations().group(asked.group) or []
        if not found:
            raise errors.ValidationError(_("No Minecraft server is configured."))
        server = found[0]
    return await actions.preview(user, server, asked.request)


@dataclass(frozen=True)
class Sent:
    """What became of the form's request: the outcome's text (for a group its head and a line a
    server, as Discord's reply says it), the list to show it on, and whether anything was done
    (a group's request every server refused keeps the form, with each one's reason)."""

    text: str
    back: str
    done: bool = True


async def submit(user: WebUser, asked: ScheduleForm, server: ServerServices | None) -> Sent:
    """The form's request sent to its operation: the page's server's, or the group's."""
    check_target(asked)
    if asked.group is not None:
        if asked.dynamic is not None:
            fanned = await actions.schedule_dynamic_group(user, asked.group, asked.dynamic)
        else:
            fanned = await actions.schedule_group(user, asked.group, asked.request)
        done = any(o.ok for o in fanned.outcomes)
        return Sent(fanned.text, f"/groups/{asked.group}/queue", done)
    assert server is not None  # a group's page sends to a group: its own, or its target
    if asked.dynamic is not None:
        made = await actions.schedule_dynamic(user, server, asked.dynamic)
        return Sent(made.text, f"/servers/{server.name}/queue")
    made = await actions.schedule(user, server, asked.request)
    which = "planned" if made.planned is not None else "queue"
    return Sent(made.text, f"/servers/{server.name}/{which}")


async def form_context(server: ServerServices | None, group: str | None = None) -> dict[str, Any]:
    """What the form shows besides its fields: where it posts, the zones to choose from (the
    reader's preselected), where it may schedule (the page's server, then every group), and on a
    server's page its game tick now, for `at` (None when it cannot be read; the tick alone, as
    the lists read the pack: /time's TPS may wait a second). A group's page has no one tick."""
    groups = [c for c in choices() if c.group]
    if server is None:
        return {
            "zones": zone_groups(),
            "reader_zone": reader_zone().key,
            "targets": groups,
            "here": group,
            "form_action": f"/groups/{group}/queue",
            "tick": None,
            "on_group": True,
        }
    try:
        tick: int | None = await server.pack.get_time()
    except errors.BotError:
        tick = None
    only = Choice(server.name, _("{server} only", server=server.name), False)
    return {
        "zones": zone_groups(),
        "reader_zone": reader_zone().key,
        "targets": [only, *groups],
        "here": server.name,
        "form_action": f"/servers/{server.name}/queue",
        "tick": tick,
        "on_group": False,
    }


def preview_rows(shown: Preview) -> list[dict[str, str]]:
    """The previewed runs as the page lists them: in the request's zone, the zone named."""
    zone = ZoneInfo(shown.timezone)
    return [{"at": t.isoformat(), "text": time_text(t, zone=zone)} for t in shown.runs]
