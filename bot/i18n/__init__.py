"""The bot's languages: gettext catalogs kept with Babel, and the locale each text is said in.

English is the source language (the message ids); every other language is one catalog,
``locale/<ll_CC>/LC_MESSAGES/messages.po``, compiled in memory the first time it is used (so a
fresh checkout, an editable install and a wheel all read the same ``.po`` files and no compiled
file can be stale). ``python -m bot.catalogs update`` re-extracts and merges the catalogs.

Which locale a text is in is a context variable, so the code that builds a reply only wraps its
literal (``_("Paused `{id}`.", id=id)``) and never passes a locale around:

- an interaction's replies, errors and embeds: ``interaction.locale`` (set by the command tree's
  and the views' ``interaction_check``), else English;
- alerts and event texts: ``DOOM_LOCALE``, else the guild's preferred locale, else English;
- the console's own lines: ``DOOM_LOCALE``, else the system locale (``LANGUAGE``, ``LC_ALL``,
  ``LC_MESSAGES``, ``LANG``), else English;
- in-game texts players read: the server's ``locale`` setting (default English).

Texts made before their locale is known (errors cached by the command checker, module-level
titles) are :func:`lazy`: they are translated each time they are turned into a string.

This module does not import discord: the core uses it. The Discord side (the command tree's
:class:`~discord.app_commands.Translator`) is the Discord face's
:mod:`bot.discord.slash.translator`.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_LOCALE",
    "N_",
    "Joined",
    "Lazy",
    "Text",
    "_",
    "add_texts",
    "available_locales",
    "catalog_dir",
    "console_locale",
    "current_locale",
    "discord_locale",
    "lazy",
    "localized",
    "negotiate",
    "ngettext",
    "pgettext",
    "pick",
    "set_locale",
    "system_locale",
    "translations",
    "use_locale",
]

import contextlib
import functools
import gettext
import io
import logging
import os
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

log = logging.getLogger(__name__)

DEFAULT_LOCALE = "en"  # the source language: no catalog, the message ids are the English text
DOMAIN = "messages"
_CHECKOUT = Path(__file__).resolve().parents[2] / "locale"  # source tree, editable install
_BUNDLED = Path(__file__).resolve().parents[1] / "_locale"  # the copy setup.py puts in a wheel
# Chinese written in simplified characters: a bare "zh" and these regions read zh_CN's catalog;
# zh_TW / zh_HK / zh_Hant read traditional characters and fall back to English until they have one
_SIMPLIFIED_REGIONS = {"CN", "SG", "MY", "HANS"}

_current: ContextVar[str] = ContextVar("doom_locale", default=DEFAULT_LOCALE)

P = ParamSpec("P")
R = TypeVar("R")


def catalog_dir() -> Path:
    """Where the catalogs are: the checkout's ``locale/``, else the copy shipped in the wheel."""
    if (_CHECKOUT / f"{DOMAIN}.pot").is_file():
        return _CHECKOUT
    return _BUNDLED


@functools.cache
def available_locales() -> tuple[str, ...]:
    """English and every locale with a catalog, e.g. ("en", "zh_CN")."""
    root = catalog_dir()
    found = sorted(p.parent.parent.name for p in root.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))
    return (DEFAULT_LOCALE, *found)


@functools.cache
def translations(locale: str) -> gettext.NullTranslations:
    """The compiled catalog of a locale (English, or a locale without one: the message ids)."""
    po = catalog_dir() / locale / "LC_MESSAGES" / f"{DOMAIN}.po"
    if locale == DEFAULT_LOCALE or not po.is_file():
        return gettext.NullTranslations()
    with po.open("rb") as f:
        catalog = read_po(f, locale=locale, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)  # a fuzzy guess is not shown to anyone
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def negotiate(tag: object) -> str | None:
    """The catalog locale for a language tag ("zh-CN", "zh_CN.UTF-8", Locale.chinese), or None.

    English tags ("en-US", "en_GB") give "en"; a language without a catalog gives None.
    """
    return _negotiate(str(getattr(tag, "value", tag) or ""))


@functools.lru_cache(maxsize=256)
def _negotiate(tag: str) -> str | None:
    # cached: a Discord command tree asks it for every name and description in each of
    # Discord's 30-odd locales when it syncs
    text = tag.strip()
    text = text.split(".", 1)[0].split("@", 1)[0].replace("-", "_")
    if not text or text in ("C", "POSIX"):
        return None
    parts = text.split("_")
    language = parts[0].lower()
    rest = [p.upper() for p in parts[1:]]
    if language == "en":
        return DEFAULT_LOCALE
    known = available_locales()
    exact = "_".join([language, *rest[:1]])
    if exact in known:
        return exact
    if language == "zh":
        if rest and not set(rest) & _SIMPLIFIED_REGIONS:
            return None
        return "zh_CN" if "zh_CN" in known else None
    same = [k for k in known if k.split("_")[0] == language]
    return same[0] if len(same) == 1 else None


def pick(*candidates: object) -> str:
    """The first candidate that has a catalog (or is English), else English."""
    for candidate in candidates:
        found = negotiate(candidate)
        if found is not None:
            return found
    return DEFAULT_LOCALE


def system_locale(environ: dict[str, str] | None = None) -> str | None:
    """The terminal's language, read as gettext does (LANGUAGE, LC_ALL, LC_MESSAGES, LANG)."""
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            return value.split(":", 1)[0]  # LANGUAGE is a priority list
    return None


def console_locale(setting: str | None, environ: dict[str, str] | None = None) -> str:
    """The console's locale: ``DOOM_LOCALE``, else the system locale, else English."""
    return pick(setting, system_locale(environ))


def discord_locale(locale: str) -> str:
    """A catalog locale as Discord spells it ("zh_CN" -> "zh-CN", "en" -> "en-US")."""
    return "en-US" if locale == DEFAULT_LOCALE else locale.replace("_", "-")


# -- the current locale ------------------------------------------------------------------------


def current_locale() -> str:
    return _current.get()


def set_locale(locale: object) -> str:
    """Make ``locale`` (any tag; English when it has no catalog) this task's locale."""
    chosen = pick(locale)
    _current.set(chosen)
    return chosen


@contextlib.contextmanager
def use_locale(locale: object) -> Iterator[str]:
    """Texts made inside the block are in ``locale``; the previous locale is restored after."""
    token = _current.set(pick(locale))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def localized(
    choose: Callable[..., object],
) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Awaitable[R]]]:
    """Run a coroutine function in the locale ``choose(*args, **kwargs)`` names."""

    def decorator(func: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
        @functools.wraps(func)
        async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            with use_locale(choose(*args, **kwargs)):
                return await func(*args, **kwargs)

        return wrapper

    return decorator


# -- lookups -----------------------------------------------------------------------------------


def add_texts(folder: Path) -> list[str]:
    """A plugin's translations (``<folder>/<locale>/LC_MESSAGES/*.po``) behind the bot's own, for
    the locales the bot speaks; the locales added. A text the bot translates itself keeps the
    bot's words."""
    added = []
    for po in sorted(folder.glob("*/LC_MESSAGES/*.po")):
        locale = po.parent.parent.name
        if locale == DEFAULT_LOCALE or locale not in available_locales():
            continue
        with po.open("rb") as f:
            catalog = read_po(f, locale=locale)
        buffer = io.BytesIO()
        write_mo(buffer, catalog, use_fuzzy=False)
        buffer.seek(0)
        translations(locale).add_fallback(gettext.GNUTranslations(buffer))
        added.append(locale)
    return added


def _format(text: str, params: dict[str, Any]) -> str:
    # only texts with placeholders are formatted, so a literal brace in a plain text is safe
    return text.format(**{k: str(v) if isinstance(v, Lazy) else v for k, v in params.items()})


def _(message: str, /, **params: Any) -> str:
    """``message`` in the current locale, its ``{name}`` placeholders filled from ``params``."""
    text = translations(_current.get()).gettext(message)
    return _format(text, params) if params else text


def ngettext(singular: str, plural: str, n: int, /, **params: Any) -> str:
    """The singular or plural form for ``n`` in the current locale; ``{n}`` is available."""
    text = translations(_current.get()).ngettext(singular, plural, n)
    return _format(text, {"n": n, **params})


def pgettext(context: str, message: str, /, **params: Any) -> str:
    """``message`` as meant in ``context`` (a command name, not the same word in a sentence)."""
    text = translations(_current.get()).pgettext(context, message)
    return _format(text, params) if params else text


def N_(message: str, /) -> str:
    """Marks a literal for extraction only; it is translated where it is shown, with ``_()``."""
    return message


class Lazy:
    """A text translated each time it is turned into a string, in the locale current then.

    For texts made before their reader is known: an error the command checker caches and raises
    again to someone with another locale, a title defined at import time.
    """

    __slots__ = ("message", "params")

    def __init__(self, message: str, params: dict[str, Any]) -> None:
        self.message = message
        self.params = params

    def __str__(self) -> str:
        return _(self.message, **self.params)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"lazy({self.message!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Lazy):
            return (self.message, self.params) == (other.message, other.params)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.message)


def lazy(message: str, /, **params: Any) -> Lazy:
    """``message`` (with ``params``) to be translated when it is shown, see :class:`Lazy`."""
    return Lazy(message, params)


class Joined(Lazy):
    """Texts joined by ``sep`` when shown, each (a lazy one) in the locale current then: a list
    of things that failed, made where no reader is known, said in an alert channel's language."""

    __slots__ = ("items", "sep")

    def __init__(self, items: Iterable[str | Lazy], sep: str = ", ") -> None:
        super().__init__("", {})
        self.items = tuple(items)
        self.sep = sep

    def __str__(self) -> str:
        return self.sep.join(str(i) for i in self.items)

    def __repr__(self) -> str:
        return f"Joined({self.items!r}, {self.sep!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Joined):
            return (self.items, self.sep) == (other.items, other.sep)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.items, self.sep))


Text = str | Lazy  # what an error or a title may hold: a plain string, or a lazy one
