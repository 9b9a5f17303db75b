"""How an outcome reads in the console: rich renderables.

An outcome's text and sections are in the faces' shared markup (``**bold**``, `` `code` ``, code
fences, instants as ``<t:N:F>``). A terminal gets it through rich: markdown rendered, a section's
fields as a two-column table, colour when the output is a terminal and plain text with no escape
codes when it is not (a pipe, a file). An instant reads as the one console format,
:func:`bot.i18n.formats.moment`, in the console's zone.
"""

from __future__ import annotations

__all__ = ["DiscordMarkdown", "Labelled", "outcome_view", "section_view"]

import re
from collections.abc import Callable, Sequence
from datetime import datetime, tzinfo
from typing import ClassVar

from markdown_it.token import Token
from rich._wrap import divide_line
from rich.cells import cell_len
from rich.console import (
    Console,
    ConsoleOptions,
    Group,
    JustifyMethod,
    OverflowMethod,
    RenderableType,
    RenderResult,
)
from rich.containers import Lines
from rich.markdown import CodeBlock, Markdown, MarkdownContext, MarkdownElement, Paragraph
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from bot.i18n.formats import stamps_in_zone
from bot.operations.sections import Section, Tone

_LEADING = re.compile(r"^ +")
# an address in a message's text, without the punctuation that may follow it in a sentence
_URL = re.compile(r"https?://[^\s<>`]*[^\s<>`.,;:!?)\]]")
_CODE_SPAN = re.compile(r"(`+[^`]*`+)")
_MARKS = re.compile(r"[\\_*~|]")  # what markdown (and Discord's spoilers) would read in a link
_NBSP = "\xa0"
_INDENT = "  "


class _Unfolded(Text):
    """Text whose words are never cut: rich folds a word longer than the line (a login link, a
    calendar address) into pieces on several lines, which copy as a broken link. Here such a
    word gets a line of its own and runs past the edge, where the terminal wraps it without a
    line break, so it selects and copies whole."""

    def wrap(
        self,
        console: Console,
        width: int,
        *,
        justify: JustifyMethod | None = None,
        overflow: OverflowMethod | None = None,
        tab_size: int = 8,
        no_wrap: bool | None = None,
    ) -> Lines:
        lines = Lines()
        for line in self.split(allow_blank=True):
            if "\t" in line:
                line.expand_tabs(tab_size)
            parts = line.divide(divide_line(str(line), width, fold=False))
            for part in parts[:-1]:
                part.rstrip()  # the space a line was broken at
            lines.extend(parts)
        return lines


class _Paragraph(Paragraph):
    """A paragraph without the padding to the full width that rich's has (it left trailing
    spaces on every line of a pipe's output), its words never cut (:class:`_Unfolded`), and
    its addresses terminal hyperlinks (OSC 8) at a terminal that has colours."""

    def __init__(self, justify: JustifyMethod, *, hyperlinks: bool = False) -> None:
        super().__init__(justify)
        self.hyperlinks = hyperlinks

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> _Paragraph:
        return cls(justify="default", hyperlinks=markdown.hyperlinks)

    def on_enter(self, context: MarkdownContext) -> None:
        super().on_enter(context)
        self.text = _Unfolded(justify="left")

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.hyperlinks:
            for found in _URL.finditer(self.text.plain):
                self.text.stylize(Style(link=found[0]), found.start(), found.end())
        yield from super().__rich_console__(console, options)


class _Code(CodeBlock):
    """A code block as its lines, indented: rich's pads them to the full width with a
    background, which a pipe would get as trailing spaces."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip("\n")
        lines = [Text(_INDENT) + Text(line, style="markdown.code") for line in code.split("\n")]
        yield Text("\n").join(lines)


class DiscordMarkdown(Markdown):
    """Markdown as Discord reads it: a line break in a paragraph is a line break (CommonMark
    would join the lines), and nothing is padded to the terminal's width."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "paragraph_open": _Paragraph,
        "fence": _Code,
        "code_block": _Code,
    }

    def __init__(self, markup: str, *, hyperlinks: bool, style: str = "none") -> None:
        super().__init__(
            _keep_indents(markup), justify="default", hyperlinks=hyperlinks, style=style
        )
        for token in self.parsed:
            for child in token.children or ():
                if child.type == "softbreak":
                    child.type = "hardbreak"

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for part in super().__rich_console__(console, options):
            for segment in [part] if isinstance(part, Segment) else console.render(part, options):
                yield Segment(segment.text.replace(_NBSP, " "), segment.style, segment.control)


def _keep_indents(markup: str) -> str:
    """A line's leading spaces as no-break spaces outside code blocks: Discord keeps a line's
    indent (the bot indents a task's command under its id), CommonMark drops it, or makes four
    spaces a code block. They are spaces again in the output."""
    lines, fenced = [], False
    for line in markup.split("\n"):
        if not fenced:
            line = _literal_links(_LEADING.sub(lambda m: _NBSP * len(m[0]), line))
        lines.append(line)
        fenced ^= line.count("```") % 2 == 1
    return "\n".join(lines)


def _literal_links(line: str) -> str:
    """An address outside code spans with markdown's marks escaped: Discord shows a link as it
    is, while CommonMark would read `._x_.` in a login token as emphasis and drop the marks."""
    parts = _CODE_SPAN.split(line)
    for i in range(0, len(parts), 2):  # the even parts are outside code spans
        parts[i] = _URL.sub(lambda m: _MARKS.sub(r"\\\g<0>", m[0]), parts[i])
    return "".join(parts)


def outcome_view(
    text: str,
    sections: Sequence[Section] = (),
    *,
    terminal: bool,
    zone: tzinfo | None = None,
    now: datetime | None = None,
) -> RenderableType | None:
    """An outcome's text and its sections as one renderable, or None when it shows nothing.
    ``terminal``: links as terminal hyperlinks, else with their address."""

    def times(said: object) -> str:
        return stamps_in_zone(str(said), zone=zone, now=now)

    def markdown(said: object, style: str = "none") -> DiscordMarkdown:
        return DiscordMarkdown(times(said), hyperlinks=terminal, style=style)

    parts: list[RenderableType] = []
    if text:
        parts.append(markdown(text))
    for section in sections:
        parts += section_view(section, markdown)
    return Group(*parts) if parts else None


class Labelled:
    """``head`` before the first line of ``body``, its later lines indented to start under the
    first (an embed field's value: the next runs of a schedule, one a line); no line is padded
    to the terminal's width."""

    def __init__(self, head: str, body: RenderableType, *, style: str = "") -> None:
        self.head, self.body, self.style = head, body, style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = cell_len(self.head)
        inner = options.update_width(max(options.max_width - width, 20))
        # not render_lines: it crops each line at the width, cutting a long link short
        lines = list(Segment.split_lines(console.render(self.body, inner))) or [[]]
        for i, line in enumerate(lines):
            yield (
                Segment(self.head, console.get_style(self.style))
                if i == 0
                else Segment(" " * width)
            )
            yield from line
            yield Segment.line()


# a section's title in its tone's colour on a terminal (as Discord colours an embed)
TONES: dict[Tone, int] = {
    "info": 0x3498DB,
    "planned": 0x57F287,
    "ok": 0x2ECC71,
    "warn": 0xE67E22,
    "bad": 0xE74C3C,
}


def section_view(
    section: Section, markdown: Callable[[object, str], DiscordMarkdown]
) -> list[RenderableType]:
    """A section: its title in colour, its lines, its fields as `name: value` in a column,
    its footer dimmed."""
    colour = section.colour if section.colour is not None else TONES[section.tone]
    parts: list[RenderableType] = []
    if section.author:
        parts.append(markdown(section.author, "dim"))
    if section.title:
        parts.append(markdown(section.title, f"bold #{colour:06x}"))
    if section.lines:
        parts.append(markdown("\n".join(section.lines), "none"))
    width = max((cell_len(f.name) for f in section.fields), default=0)
    for f in section.fields:
        head = f"{_INDENT}{f.name}:" + " " * (width - cell_len(f.name) + 1)
        parts.append(Labelled(head, markdown(f.value, "none"), style="bold"))
    if section.footer:
        parts.append(Labelled(_INDENT + "-- ", markdown(section.footer, "dim"), style="dim"))
    return parts
