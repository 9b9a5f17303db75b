"""``python -m bot.catalogs update|check|init LOCALE``: keep the catalogs in step with the code.

``update`` is the one command to run after changing a text: it extracts every ``_()``,
``ngettext()``, ``pgettext()``, ``lazy()`` and ``N_()`` literal of bot/, cogs/, console/ and web/
and of the dashboard's Jinja templates (the files and extractors babel.cfg maps: Babel's Python
extractor, Jinja2's ``babel_extract``), adds every name, description and choice of the slash
command tree (read from the tree itself, so new commands need no markers), writes
``locale/messages.pot``, merges it into each ``locale/*/LC_MESSAGES/messages.po`` (Babel's update:
new ids empty, changed ids fuzzy, removed ones kept as obsolete) and runs ``check``.

``tree`` prints the slash command tree as ``sync`` sends it to Discord, localizations included:
``python -m bot.catalogs tree > tests/cogs/command_tree.json`` regenerates the golden tree.

``check`` compiles each catalog (as the bot does at run time) and lists what is missing:
untranslated or fuzzy ids, and translations whose ``{placeholders}`` differ from the source's,
and what Babel's own catalog checks find (the count of plural forms, ``%``-format fields).
It exits 1 when anything is missing. ``init LOCALE`` starts a new language from the template.
"""

from __future__ import annotations

__all__ = ["ROOT", "TEMPLATE", "extract", "main", "problems", "update"]

import argparse
import io
import json
import string
import sys
from collections.abc import Sequence
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[2]
LOCALE_DIR = ROOT / "locale"
TEMPLATE = LOCALE_DIR / "messages.pot"
MAPPING = ROOT / "babel.cfg"
SOURCES = ("bot", "cogs", "console", "web")
KEYWORDS = {
    "_": None,
    "N_": None,
    "lazy": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
}
COMMENT_TAGS = ("TRANSLATORS:",)
WIDTH = 100


def extract() -> Catalog:
    """The template: every marked literal and every command tree string."""
    # building a bot to read its tree needs the whole application: imported only when asked
    from bot.catalogs.tree import tree_strings

    template = Catalog(
        project="doom.schedule",
        copyright_holder="the doom.schedule authors",
        msgid_bugs_address="",
        fuzzy=False,
        charset="utf-8",
    )
    with MAPPING.open(encoding="utf-8") as f:
        method_map, options_map = parse_mapping_cfg(f, str(MAPPING))
    for folder in SOURCES:
        if not (ROOT / folder).is_dir():
            continue
        # babel.cfg's patterns are relative to the checkout: those of this folder, made
        # relative to it (walking only the sources' folders, not the whole checkout)
        prefix = f"{folder}/"
        methods = [(p.removeprefix(prefix), m) for p, m in method_map if p.startswith(prefix)]
        options = {p.removeprefix(prefix): o for p, o in options_map.items()}
        found = extract_from_dir(
            ROOT / folder,
            method_map=methods,
            options_map=options,
            keywords=KEYWORDS,
            comment_tags=COMMENT_TAGS,
            strip_comment_tags=True,
        )
        for filename, lineno, message, comments, context in found:
            source = (f"{folder}/{Path(filename).as_posix()}", lineno)
            template.add(message, None, [source], auto_comments=comments, context=context)
    for text, context, where in tree_strings():
        existing = template.get(text, context)
        if existing is not None:
            existing.auto_comments.append(f"slash command tree: {where}")
            continue
        template.add(
            text, None, [], auto_comments=[f"slash command tree: {where}"], context=context
        )
    return template


def _write(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, catalog, width=WIDTH, omit_header=False, sort_output=False)


def catalogs() -> list[Path]:
    return sorted(LOCALE_DIR.glob("*/LC_MESSAGES/messages.po"))


def update() -> None:
    template = extract()
    _write(template, TEMPLATE)
    for po in catalogs():
        with po.open("rb") as f:
            catalog = read_po(f, locale=po.parent.parent.name)
        catalog.update(template, update_header_comment=False)
        _write(catalog, po)


def placeholders(text: str) -> set[str]:
    """The ``{name}`` fields of a text (format specs included, ``{{`` escapes excluded)."""
    try:
        return {
            f"{name}{':' + spec if spec else ''}"
            for _, name, spec, _ in string.Formatter().parse(text)
            if name is not None
        }
    except ValueError:
        return {"<unbalanced braces>"}


def problems(po: Path) -> list[str]:
    """What is wrong with a catalog: missing, fuzzy, or a placeholder that differs."""
    with po.open("rb") as f:
        catalog = read_po(f, locale=po.parent.parent.name)
    found: list[str] = []
    for message in catalog:
        if not message.id:
            continue  # the header
        found += _message_problems(message)
    for message, errors in catalog.check():  # Babel's checkers: plural count, %-format fields
        found += [f"{_texts(message.id)[0]!r}: {error}" for error in errors]
    buffer = io.BytesIO()
    write_mo(buffer, catalog)  # the bot compiles the same way at run time
    return found


def _texts(value: object) -> list[str]:
    if isinstance(value, list | tuple):
        return [str(v or "") for v in value]
    return [str(value or "")]


def _message_problems(message: Message) -> list[str]:
    ids = _texts(message.id)
    strings = _texts(message.string)
    label = f"{ids[0]!r}" + (f" (context {message.context!r})" if message.context else "")
    if message.fuzzy:
        return [f"{label}: fuzzy (check it, then remove the fuzzy flag)"]
    if not all(strings):
        return [f"{label}: not translated"]
    wanted = set().union(*(placeholders(i) for i in ids))
    out = []
    for text in strings:
        if placeholders(text) != wanted:
            out.append(f"{label}: placeholders {sorted(placeholders(text))} != {sorted(wanted)}")
    return out


def check(out: io.TextIOBase | None = None) -> int:
    stream = out or sys.stdout
    bad = 0
    for po in catalogs():
        found = problems(po)
        bad += len(found)
        status = "complete" if not found else f"{len(found)} problem(s)"
        print(f"{po.relative_to(ROOT)}: {status}", file=stream)
        for line in found:
            print(f"  {line}", file=stream)
    return 1 if bad else 0


def init(locale: str) -> None:
    with TEMPLATE.open("rb") as f:
        template = read_po(f)
    catalog = Catalog(locale=locale, project="doom.schedule", charset="utf-8")
    catalog.update(template)
    _write(catalog, LOCALE_DIR / locale / "LC_MESSAGES" / "messages.po")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot.catalogs", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("update", help="extract, merge into every catalog, then check")
    sub.add_parser("check", help="list untranslated, fuzzy or mismatched texts")
    sub.add_parser("tree", help="print the command tree as sync sends it (the golden tree)")
    new = sub.add_parser("init", help="start a catalog for a new language")
    new.add_argument("locale", help="e.g. zh_TW")
    args = parser.parse_args(argv)
    if args.command == "init":
        init(args.locale)
        return 0
    if args.command == "tree":
        from bot.catalogs.tree import tree_payload

        print(json.dumps(tree_payload(), indent=1, sort_keys=True, ensure_ascii=False))
        return 0
    if args.command == "update":
        update()
    return check()
