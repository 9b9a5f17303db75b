"""The dashboard in the reader's language: each request's locale, and the templates' side.

A request's locale is the first language of the browser's ``Accept-Language`` (werkzeug's parsed
header, best quality first; ``q=0`` means "not this one") that has a catalog, as
:func:`bot.i18n.negotiate` maps tags ("zh", "zh-CN", "zh-Hans" read zh_CN, "zh-TW" does not);
else ``DOOM_LOCALE``; else English. It becomes the bot's locale context variable for the
request (Quart runs each request in a task of its own), so ``_()`` in web/ and the services'
errors shown on a page come out in it.

Templates use the bot's own ``_``, ``ngettext`` and ``pgettext`` through ``jinja2.ext.i18n``,
installed old-style on purpose: the catalogs' placeholders are ``{name}`` fields filled by
:func:`bot.i18n._` (which ``python -m bot.catalogs check`` compares), while newstyle gettext would
``%``-format every text. So write ``{{ _("Task `{id}`", id=task.id)|ticks }}``, never a
``{% trans %}`` block (it ``%``-formats too). Autoescaping still escapes the whole result.
"""

from __future__ import annotations

__all__ = ["install", "request_locale"]

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from jinja2 import pass_context
from jinja2.runtime import Context
from quart import request

from bot.i18n import _, current_locale, formats, ngettext, pgettext, pick, set_locale
from bot.i18n.words import run_outcome
from bot.operations.ranks import RANK_NAMES, Rank
from web.context import state
from web.zones import time_text, zone_label

if TYPE_CHECKING:
    from quart import Quart

# lists and units are named as the slash commands' choices (cogs/schedule.py), whose
# translations the catalog has
CHOICE = "slash option choice"


def request_locale(setting: str | None) -> str:
    """The locale of the current request (see the module docstring)."""
    wanted = [tag for tag, quality in request.accept_languages if quality > 0]
    return pick(*wanted, setting)


def html_lang() -> str:
    """The current locale as an HTML ``lang`` (BCP 47) tag: "zh-CN", "en"."""
    return current_locale().replace("_", "-")


def choice_name(value: object) -> str:
    """A list or unit name ("queue", "game_day") as the reader's language calls it."""
    return pgettext(CHOICE, str(value))


def rank_name(rank: Rank) -> str:
    return _(RANK_NAMES.get(rank, str(rank.name).lower()))


def _when(value: datetime | str) -> datetime:
    return datetime.fromisoformat(value) if isinstance(value, str) else value


def datetime_filter(value: datetime | str | None) -> str:
    """An ISO time (as the rows hold them) in the locale's medium format, in the reader's time
    zone (web.zones), the zone named."""
    return "–" if value is None else time_text(_when(value))  # noqa: RUF001


def relative_filter(value: datetime | str | None) -> str:
    """``when`` from now: "in 5 minutes" / "5分钟后"."""
    return "" if value is None else formats.relative(_when(value))


def duration_filter(value: float | timedelta) -> str:
    return formats.duration(value)


def per_render(func: Callable[..., str]) -> Callable[..., str]:
    """``func`` as a filter Jinja calls at each render: it folds a plain filter of a constant
    (``{{ 'planned'|choice }}``) once, when it compiles the template, in that request's locale,
    and caches the result for every reader after; a context filter it never folds."""

    @pass_context
    def filter_(context: Context, value: Any, *args: Any, **kwargs: Any) -> str:
        return func(value, *args, **kwargs)

    return filter_


def install(app: Quart) -> None:
    """Give ``app`` (the dashboard, or an extension's app) the request locale, and its Jinja
    environment the bot's translations. Install it before any other ``before_request`` hook:
    the rate limiter refuses in one, and its page must already be in the reader's language."""

    @app.before_request
    async def choose_locale() -> None:
        set_locale(request_locale(state().settings.locale))

    env = app.jinja_env
    env.add_extension("jinja2.ext.i18n")
    env.install_gettext_callables(  # type: ignore[attr-defined]
        _, ngettext, newstyle=False, pgettext=pgettext
    )
    env.globals["html_lang"] = html_lang
    env.globals["zone_label"] = zone_label
    filters: dict[str, Callable[..., str]] = {
        "number": formats.number,
        "decimal": formats.decimal,
        "datetime": datetime_filter,
        "relative": relative_filter,
        "duration": duration_filter,
        "ticks_duration": formats.ticks_duration,
        "choice": choice_name,
        "rank": rank_name,
        "run_outcome": run_outcome,
    }
    env.filters.update({name: per_render(f) for name, f in filters.items()})
