"""Discord's documented limits on what a bot sends, and the check LocalDiscord answers with.

Every number below is Discord's, read in discord/discord-api-docs at commit c98d64bc
(``developers/...`` paths are files of that repository). A request that breaks one gets the answer
Discord gives: HTTP 400 with ``{"code": 50035, "message": "Invalid Form Body", "errors": ...}``
where ``errors`` nests the failing field's path (developers/reference.mdx "Error Messages":
``{"embeds": {"0": {"title": {"_errors": [...]}}}}``), or the specific JSON code of the limit
(developers/topics/opcodes-and-status-codes.mdx). discord.py turns that body into
``HTTPException.code`` / ``.text`` ("In embeds.0.title: Must be 256 or fewer in length.").

Lengths are counted in code points, as Python's ``len``: Discord's API "calculates length based on
the number of codepoints in the string" (discord/discord-api-docs#1315, a Discord engineer).
The error *codes* inside ``_errors`` (BASE_TYPE_MAX_LENGTH, ...) are the ones Discord answers with
as quoted in public bug reports (cited where used); the docs document the rules, not every code.
"""

from __future__ import annotations

__all__ = [
    "LIMITS",
    "LOCALES",
    "DiscordError",
    "check_callback",
    "check_commands",
    "check_message",
    "embed_size",
]

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# developers/resources/message.mdx ("content", "embeds", "Embed Limits"), developers/components/
# reference.mdx (Action Row, Button, String Select), developers/interactions/receiving-and-
# responding.mdx ("Autocomplete": max 25 choices), developers/interactions/application-commands.mdx
# (names 1-32, descriptions 1-100, options/choices max 25, choice name 1-100 and string value up
# to 100, min/max_length 0/1..6000, 100 global CHAT_INPUT commands, 8000 characters per command).
LIMITS: dict[str, int] = {
    "content": 2000,
    "embeds": 10,
    "embed.title": 256,
    "embed.description": 4096,
    "embed.fields": 25,
    "embed.field.name": 256,
    "embed.field.value": 1024,
    "embed.footer.text": 2048,
    "embed.author.name": 256,
    "embeds.total": 6000,  # "across all embeds attached to a message"
    "action_rows": 5,  # "Legacy messages allow up to 5 action rows as top-level components"
    "row.buttons": 5,
    "custom_id": 100,
    "button.label": 80,
    "button.url": 512,
    "select.options": 25,
    "select.placeholder": 150,
    "select.option": 100,  # label, value, description
    "choices": 25,
    "choice.name": 100,
    "choice.value": 100,
    "attachments": 10,  # opcodes: 30015 "Maximum number of attachments in a message reached (10)"
    # developers/reference.mdx "Uploading Files": 10 MiB per file by default; interactions carry
    # their own attachment_size_limit (change-log "Per-Attachment File Upload Behavior for Apps")
    "attachment.size": 10 * 1024 * 1024,
    "request.size": 25 * 1024 * 1024,  # message.mdx "The maximum request size ... is 25 MiB"
    "command.name": 32,
    "command.description": 100,
    "command.options": 25,
    "option.choices": 25,
    "option.length": 6000,
    "command.size": 8000,  # 4000 until discord-api-docs #6668 (Feb 2024) raised it
    "commands": 100,
    "followup.window": 15 * 60,  # "Interaction tokens are valid for 15 minutes"
    "response.window": 3,  # "must send an initial response within 3 seconds"
}

# developers/reference.mdx "Locales"
LOCALES = frozenset(
    {
        "id",
        "da",
        "de",
        "en-GB",
        "en-US",
        "es-ES",
        "es-419",
        "fr",
        "hr",
        "it",
        "lt",
        "hu",
        "nl",
        "no",
        "pl",
        "pt-BR",
        "ro",
        "fi",
        "sv-SE",
        "vi",
        "tr",
        "cs",
        "el",
        "bg",
        "ru",
        "uk",
        "hi",
        "th",
        "zh-CN",
        "ja",
        "zh-TW",
        "ko",
    }
)
IS_COMPONENTS_V2 = 1 << 15
_BUTTON, _ROW, _STRING_SELECT = 2, 1, 3


@dataclass(frozen=True, slots=True)
class DiscordError:
    """An error answer as Discord sends it: the HTTP status and the JSON body."""

    status: int
    body: dict[str, Any]

    @property
    def code(self) -> int:
        return int(self.body.get("code", 0))

    @classmethod
    def json(cls, status: int, code: int, message: str) -> DiscordError:
        return cls(status, {"message": message, "code": code})


# answers with a code of their own (developers/topics/opcodes-and-status-codes.mdx); the
# message texts are Discord's as discord.py users quote them
UNKNOWN_INTERACTION = DiscordError.json(404, 10062, "Unknown interaction")
ALREADY_ACKNOWLEDGED = DiscordError.json(400, 40060, "Interaction has already been acknowledged.")
UNKNOWN_WEBHOOK = DiscordError.json(404, 10015, "Unknown Webhook")
UNKNOWN_MESSAGE = DiscordError.json(404, 10008, "Unknown Message")
# after the 15 minutes, every request on the token is 401 (discord/discord-api-docs#6851)
INVALID_WEBHOOK_TOKEN = DiscordError.json(401, 50027, "Invalid Webhook Token")
EMPTY_MESSAGE = DiscordError.json(400, 50006, "Cannot send an empty message")
TOO_MANY_ATTACHMENTS = DiscordError.json(
    400, 30015, "Maximum number of attachments in a message reached (10)"
)
TOO_LARGE = DiscordError.json(413, 40005, "Request entity too large")
# a bulk overwrite of 101-130 commands (measured in chenhg5/cc-connect#504)
TOO_MANY_COMMANDS = DiscordError.json(
    400, 30032, "Maximum number of application commands reached (100)"
)


class _Errors:
    """Collects field errors into Discord's nested ``errors`` object."""

    def __init__(self) -> None:
        self.tree: dict[str, Any] = {}

    def add(self, path: Sequence[str | int], code: str, message: str) -> None:
        node = self.tree
        for part in path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def length(self, path: Sequence[str | int], value: object, high: int, low: int = 0) -> None:
        """Discord's three length errors: max (low 0), bad (both ends), min."""
        if not isinstance(value, str | list):
            return
        n = len(value)
        if low and (n < low or n > high):
            self.add(path, "BASE_TYPE_BAD_LENGTH", f"Must be between {low} and {high} in length.")
        elif n > high:
            self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {high} or fewer in length.")

    def required(self, path: Sequence[str | int]) -> None:
        self.add(path, "BASE_TYPE_REQUIRED", "This field is required")

    def result(self) -> DiscordError | None:
        if not self.tree:
            return None
        return DiscordError(
            400, {"message": "Invalid Form Body", "code": 50035, "errors": self.tree}
        )


# -- messages ------------------------------------------------------------------------------------


def _text(value: object) -> str:
    # "Leading and trailing whitespace characters are not included" (Embed Limits)
    return value.strip() if isinstance(value, str) else ""


def embed_size(embed: Mapping[str, Any]) -> int:
    """What an embed counts towards the 6000: title, description, field names and values, footer
    text, author name (developers/resources/message.mdx "Embed Limits")."""
    size = len(_text(embed.get("title"))) + len(_text(embed.get("description")))
    for f in embed.get("fields") or []:
        size += len(_text(f.get("name"))) + len(_text(f.get("value")))
    size += len(_text((embed.get("footer") or {}).get("text")))
    size += len(_text((embed.get("author") or {}).get("name")))
    return size


def _check_embeds(errors: _Errors, path: tuple[str | int, ...], embeds: object) -> None:
    if not isinstance(embeds, list):
        return
    errors.length((*path, "embeds"), embeds, LIMITS["embeds"])
    total = 0
    for i, embed in enumerate(embeds):
        at = (*path, "embeds", i)
        errors.length((*at, "title"), _text(embed.get("title")), LIMITS["embed.title"])
        desc = _text(embed.get("description"))
        errors.length((*at, "description"), desc, LIMITS["embed.description"])
        fields = embed.get("fields") or []
        errors.length((*at, "fields"), fields, LIMITS["embed.fields"])
        for j, f in enumerate(fields):
            for key in ("name", "value"):
                text = _text(f.get(key))
                if not text:
                    errors.required((*at, "fields", j, key))
                errors.length((*at, "fields", j, key), text, LIMITS[f"embed.field.{key}"])
        for part, key in (("footer", "text"), ("author", "name")):
            sub = embed.get(part)
            if isinstance(sub, Mapping):
                limit = LIMITS[f"embed.{part}.{key}"]
                errors.length((*at, part, key), _text(sub.get(key)), limit)
        total += embed_size(embed)
    if total > LIMITS["embeds.total"]:
        # quoted in NelsonDane/auto-rsa#451 and harubaru/discord-stable-diffusion#16
        errors.add(
            (*path, "embeds"),
            "MAX_EMBED_SIZE_EXCEEDED",
            f"Embed size exceeds maximum size of {LIMITS['embeds.total']}",
        )


def _check_components(
    errors: _Errors, path: tuple[str | int, ...], components: object, flags: int
) -> None:
    if not isinstance(components, list) or flags & IS_COMPONENTS_V2:
        return  # components v2 layouts are not used by this bot and not modelled here
    errors.length((*path, "components"), components, LIMITS["action_rows"])
    seen: set[str] = set()
    for i, row in enumerate(components):
        at = (*path, "components", i)
        children = row.get("components") or []
        if row.get("type") != _ROW:
            errors.add((*at, "type"), "UNION_TYPE_CHOICES", 'Value of field "type" must be 1.')
            continue
        if any(c.get("type") == _BUTTON for c in children):
            errors.length((*at, "components"), children, LIMITS["row.buttons"])
        elif len(children) > 1:
            errors.length((*at, "components"), children, 1)
        for j, child in enumerate(children):
            _check_component(errors, (*at, "components", j), child, seen)


def _check_component(
    errors: _Errors, at: tuple[str | int, ...], child: Mapping[str, Any], seen: set[str]
) -> None:
    custom_id = child.get("custom_id")
    if child.get("type") == _BUTTON and child.get("style") == 5:  # a link button
        errors.length((*at, "url"), child.get("url"), LIMITS["button.url"], 1)
    elif child.get("type") == _BUTTON and child.get("style") == 6:
        pass  # premium buttons carry an sku_id
    elif custom_id is None:
        errors.required((*at, "custom_id"))
    else:
        errors.length((*at, "custom_id"), custom_id, LIMITS["custom_id"], 1)
        if custom_id in seen:
            # "Multiple components on the same message must not share the same custom_id"
            errors.add(
                (*at, "custom_id"),
                "COMPONENT_CUSTOM_ID_DUPLICATED",
                "Component custom id cannot be duplicated",
            )
        seen.add(str(custom_id))
    if child.get("type") == _BUTTON:
        errors.length((*at, "label"), child.get("label"), LIMITS["button.label"])
    elif child.get("type") == _STRING_SELECT:
        options = child.get("options") or []
        errors.length((*at, "options"), options, LIMITS["select.options"], 1)
        errors.length((*at, "placeholder"), child.get("placeholder"), LIMITS["select.placeholder"])
        for k, option in enumerate(options):
            for key in ("label", "value", "description"):
                errors.length((*at, "options", k, key), option.get(key), LIMITS["select.option"])


def check_message(
    body: Mapping[str, Any],
    files: Sequence[tuple[str, bytes]] = (),
    *,
    size_limit: int = LIMITS["attachment.size"],
    creating: bool = True,
    path: tuple[str | int, ...] = (),
) -> DiscordError | None:
    """The answer Discord gives to this message body (create or edit), or None if it is fine.

    ``creating``: a new message must have something to show (opcodes 50006); an edit need not.
    ``path``: where the message sits in the request (``("data",)`` in interaction callbacks).
    """
    if len(files) > LIMITS["attachments"]:
        return TOO_MANY_ATTACHMENTS
    if any(len(data) > size_limit for _, data in files):
        return TOO_LARGE
    if sum(len(data) for _, data in files) > LIMITS["request.size"]:
        return TOO_LARGE
    errors = _Errors()
    content = body.get("content")
    errors.length((*path, "content"), content, LIMITS["content"])
    _check_embeds(errors, path, body.get("embeds"))
    _check_components(errors, path, body.get("components"), int(body.get("flags") or 0))
    for i, item in enumerate(body.get("attachments") or []):
        errors.length((*path, "attachments", i, "description"), item.get("description"), 1024)
    found = errors.result()
    if found is not None:
        return found
    shown = (
        _text(content),
        body.get("embeds"),
        body.get("components"),
        files,
        body.get("sticker_ids"),
        body.get("poll"),
        body.get("attachments"),
    )
    if creating and not any(shown):
        return EMPTY_MESSAGE
    return None


def check_callback(
    body: Mapping[str, Any],
    files: Sequence[tuple[str, bytes]] = (),
    *,
    size_limit: int = LIMITS["attachment.size"],
) -> DiscordError | None:
    """POST /interactions/{id}/{token}/callback: the initial response's body
    (developers/interactions/receiving-and-responding.mdx, "Interaction Response Object")."""
    kind = body.get("type")
    data = body.get("data") or {}
    if kind == 4:  # CHANNEL_MESSAGE_WITH_SOURCE
        return check_message(data, files, size_limit=size_limit, path=("data",))
    if kind == 7:  # UPDATE_MESSAGE
        return check_message(data, files, size_limit=size_limit, creating=False, path=("data",))
    if kind == 8:  # APPLICATION_COMMAND_AUTOCOMPLETE_RESULT
        errors = _Errors()
        choices = data.get("choices")
        if choices is None:
            errors.required(("data", "choices"))
        else:
            _check_choices(errors, ("data",), choices, LIMITS["choices"])
        return errors.result()
    return None


def _check_choices(
    errors: _Errors, at: tuple[str | int, ...], choices: Sequence[Mapping[str, Any]], most: int
) -> None:
    # "Must be 25 or fewer in length." / "data.choices[n].name - BASE_TYPE_BAD_LENGTH", as quoted
    # in discordjs/guide#1236 and Statsify/statsify#830
    errors.length((*at, "choices"), list(choices), most)
    for i, choice in enumerate(choices):
        name = choice.get("name")
        if not isinstance(name, str):
            errors.required((*at, "choices", i, "name"))
        errors.length((*at, "choices", i, "name"), name, LIMITS["choice.name"], 1)
        value = choice.get("value")
        if value is None:
            errors.required((*at, "choices", i, "value"))
        errors.length((*at, "choices", i, "value"), value, LIMITS["choice.value"])
        _check_localizations(
            errors,
            (*at, "choices", i, "name_localizations"),
            choice.get("name_localizations"),
            LIMITS["choice.name"],
            1,
        )


# -- the command tree ----------------------------------------------------------------------------

_SCRIPTS = ((0x0900, 0x097F), (0xA8E0, 0xA8FF), (0x0E00, 0x0E7F))  # Devanagari (+Ext.), Thai


def _name_char(ch: str) -> bool:
    """One character of ``^[-_'\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$``
    (application-commands.mdx "Application Command Naming"); scripts by their Unicode blocks."""
    if ch in "-_'" or unicodedata.category(ch)[0] in "LN":
        return True
    return any(low <= ord(ch) <= high for low, high in _SCRIPTS)


def _check_name(errors: _Errors, at: tuple[str | int, ...], name: object) -> None:
    if not isinstance(name, str):
        errors.required(at)
        return
    errors.length(at, name, LIMITS["command.name"], 1)
    # "If there is a lowercase variant of any letters used, you must use those"
    if name and (not all(map(_name_char, name)) or name != name.lower()):
        errors.add(at, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")


def _check_localizations(
    errors: _Errors,
    at: tuple[str | int, ...],
    values: object,
    high: int,
    low: int,
    *,
    names: bool = False,
) -> None:
    if not isinstance(values, Mapping):
        return
    for locale, text in values.items():
        if locale not in LOCALES:
            errors.add(
                (*at, locale), "ENUM_TYPE_COERCE", f'Value "{locale}" is not a valid enum value.'
            )
        elif names:
            _check_name(errors, (*at, locale), text)
        else:
            errors.length((*at, locale), text, high, low)


def _check_described(errors: _Errors, at: tuple[str | int, ...], item: Mapping[str, Any]) -> None:
    _check_name(errors, (*at, "name"), item.get("name"))
    _check_localizations(
        errors,
        (*at, "name_localizations"),
        item.get("name_localizations"),
        LIMITS["command.name"],
        1,
        names=True,
    )
    description = item.get("description")
    if not isinstance(description, str):
        errors.required((*at, "description"))
    errors.length((*at, "description"), description, LIMITS["command.description"], 1)
    _check_localizations(
        errors,
        (*at, "description_localizations"),
        item.get("description_localizations"),
        LIMITS["command.description"],
        1,
    )


def _check_options(errors: _Errors, at: tuple[str | int, ...], options: object) -> None:
    if not isinstance(options, list):
        return
    errors.length((*at, "options"), options, LIMITS["command.options"])
    names: set[str] = set()
    optional_seen = False
    for i, option in enumerate(options):
        here = (*at, "options", i)
        _check_described(errors, here, option)
        if option.get("name") in names:
            errors.add(
                (*here, "name"),
                "APPLICATION_COMMANDS_DUPLICATE_NAME",
                "Application command names must be unique",
            )
        names.add(str(option.get("name")))
        if option.get("type") in (1, 2):  # a subcommand (group): its own options
            _check_options(errors, here, option.get("options"))
            continue
        # "Required options must be listed before optional options"
        if option.get("required") and optional_seen:
            errors.add(
                (*here, "required"),
                "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                "Required options must be placed before non-required options",
            )
        optional_seen = optional_seen or not option.get("required")
        choices = option.get("choices")
        if choices:
            _check_choices(errors, here, choices, LIMITS["option.choices"])
            if option.get("autocomplete"):
                # "autocomplete may not be set to true if choices are present"
                errors.add(
                    (*here, "autocomplete"),
                    "APPLICATION_COMMAND_OPTION_AUTOCOMPLETE_INVALID",
                    "Autocomplete cannot be enabled on options with choices",
                )
        for key, low in (("min_length", 0), ("max_length", 1)):
            value = option.get(key)
            if isinstance(value, int) and not low <= value <= LIMITS["option.length"]:
                errors.add(
                    (*here, key),
                    "NUMBER_TYPE_MAX" if value > low else "NUMBER_TYPE_MIN",
                    f"int value should be between {low} and {LIMITS['option.length']}.",
                )


def _longest(item: Mapping[str, Any], key: str) -> int:
    """A field's size: "only the longest localization for each field (including the default
    value) is counted towards the size limit" (application-commands.mdx)."""
    texts = [item.get(key), *(item.get(f"{key}_localizations") or {}).values()]
    return max((len(t) for t in texts if isinstance(t, str)), default=0)


def command_size(command: Mapping[str, Any]) -> int:
    """The characters a command counts towards its 8000: names, descriptions and choice values,
    of the command, its options (and subcommands) and their choices."""
    size = _longest(command, "name") + _longest(command, "description")
    for option in command.get("options") or []:
        size += command_size(option)
    for choice in command.get("choices") or []:
        size += _longest(choice, "name") + len(str(choice.get("value", "")))
    return size


def check_commands(commands: Iterable[Mapping[str, Any]]) -> DiscordError | None:
    """PUT /applications/{app}/commands (or a guild's): the bulk overwrite discord.py's
    ``CommandTree.sync`` sends; errors are nested under each command's index."""
    listed = list(commands)
    chat = [c for c in listed if c.get("type", 1) == 1]
    if len(chat) > LIMITS["commands"]:
        return TOO_MANY_COMMANDS
    errors = _Errors()
    seen: set[tuple[object, object]] = set()
    for i, command in enumerate(listed):
        if command.get("type", 1) == 1:  # user and message commands have no description
            _check_described(errors, (i,), command)
        key = (command.get("type", 1), command.get("name"))
        if key in seen:
            errors.add(
                (i, "name"),
                "APPLICATION_COMMANDS_DUPLICATE_NAME",
                "Application command names must be unique",
            )
        seen.add(key)
        _check_options(errors, (i,), command.get("options"))
        if command_size(command) > LIMITS["command.size"]:
            # the "Request Error" example of developers/reference.mdx
            errors.add(
                (i,),
                "APPLICATION_COMMAND_TOO_LARGE",
                f"Command exceeds maximum size ({LIMITS['command.size']})",
            )
    return errors.result()
