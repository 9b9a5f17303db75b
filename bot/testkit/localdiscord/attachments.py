"""A message's attachments as Discord answers them: uploaded files get a snowflake, a size and a
CDN address whose bytes `Attachment.read` returns (discord.py builds an `Attachment` from those
keys, and fails without `size`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import Any

from bot.testkit.localdiscord.http_session import CDN

__all__ = ["Files", "forget", "uploaded"]

Files = Sequence[tuple[str, bytes]]  # an upload's files: (name, bytes), in their index order


def uploaded(
    next_id: Callable[[], int],
    store: MutableMapping[str, bytes],
    channel_id: int,
    listed: Sequence[Mapping[str, Any]],
    files: Files,
    old: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """The attachments of a message being sent or edited: a new one (its `id` the index of its
    file in the upload) is stored at its CDN address; one of the message's own (its snowflake)
    is kept as it was."""
    kept = {str(a.get("id")): a for a in old.get("attachments") or []}
    out: list[dict[str, Any]] = []
    for item in listed:
        ident = str(item.get("id"))
        if ident in kept:
            out.append(kept[ident])
            continue
        if not ident.isdigit() or int(ident) >= len(files):
            continue  # Discord refuses it (limits.check_message); nothing to keep here
        name, body = files[int(ident)]
        aid = str(next_id())
        filename = str(item.get("filename") or name)
        url = f"{CDN}{channel_id}/{aid}/{filename}"
        store[url] = body
        attachment: dict[str, Any] = {
            "id": aid,
            "filename": filename,
            "size": len(body),
            "url": url,
            "proxy_url": url,
        }
        if item.get("description"):
            attachment["description"] = item["description"]
        out.append(attachment)
    return out


def forget(store: MutableMapping[str, bytes], message: Mapping[str, Any]) -> None:
    """A dropped message's files go with it."""
    for attachment in message.get("attachments") or []:
        store.pop(str(attachment.get("url")), None)
