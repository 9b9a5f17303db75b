"""The pack client's reads: the task lists page by page, one task, ids for autocomplete, and
the events ring (see bot/minecraft/pack_client.py for the calls that change things)."""

from __future__ import annotations

from bot.errors import PackError, ValidationError
from bot.events.event import Event, event_from_fields
from bot.i18n import Text, lazy
from bot.minecraft.pack_base import (
    _BULK_IDS,
    _COUNT,
    _EVENT_SINGLE_READS,
    MAX_PAGE,
    PackBase,
    _as_int,
    _storage_payload,
)
from bot.minecraft.pack_health import pack_damage
from bot.minecraft.pack_input import (
    check_id,
    snbt_compound,
)
from bot.minecraft.pack_tasks import TASK_LISTS, Task, TaskList, task_from_storage
from bot.minecraft.snbt_text import SnbtSyntaxError, parse_printed_snbt

__all__ = ["PackReads"]


class PackReads(PackBase):
    """Reads of the pack's storage; no read changes the queue."""

    async def damage(self) -> list[Text]:
        """What is missing or malformed in the pack's objectives and storages (empty: whole);
        bot.minecraft.pack_health."""
        return await pack_damage(self.rcon)

    # -- reading the lists ----------------------------------------------------------------------

    @staticmethod
    def _check_list(which: str) -> TaskList:
        for name in TASK_LISTS:
            if which == name:
                return name
        raise ValidationError(
            lazy("{list} is not a task list; use queue, offline or paused.", list=repr(which))
        )

    async def list_tasks(
        self, which: str, *, offset: int = 0, limit: int = 20
    ) -> tuple[list[Task], int]:
        """One page of a list (in the pack's order) and the list's length."""
        name = self._check_list(which)
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise ValidationError(
                lazy("The page offset must be 0 or more (got {offset}).", offset=repr(offset))
            )
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
            raise ValidationError(
                lazy(
                    "A page holds 1 to {max} tasks (got {limit}).", max=MAX_PAGE, limit=repr(limit)
                )
            )
        page: list[Task] = []
        total = 0
        start = offset
        while len(page) < limit:
            out = await self._page(name, start, limit - len(page))
            total = _as_int(out.get("total"))
            found = out.get("page")
            tasks = [t for t in found if isinstance(t, dict)] if isinstance(found, list) else []
            page.extend(task_from_storage(t, name) for t in tasks)
            after = _as_int(out.get("next"))
            if not tasks or after >= total or after <= start:
                break  # the end of the list, or a page cut short by size: ask again from `next`
            start = after
        if not self._recent_sample():
            await self._sample()  # so eta() has a current game time for this page
        return page, total

    async def _page(self, which: TaskList, start: int, count: int) -> dict[str, object]:
        """The pack's `page` op through the storage input: the input, then one command that runs
        it and, when it succeeded, prints `doom.schedule:out` (2 round trips)."""
        req = self._next_req()
        fields: dict[str, str | int] = {
            "req": req,
            "op": "page",
            "list": which,
            "from": start,
            "count": count,
        }
        command = "data modify storage doom.schedule:in op set value " + snbt_compound(fields)
        async with self._lock:
            await self.rcon.command(command)
            reply = await self.rcon.command(
                "execute if function doom.schedule:call run data get storage doom.schedule:out"
            )
            error = self._call_failed("doom.schedule:call", reply)
            if error is not None:
                raise error
            if not reply:  # the op failed: `if function` stopped the command; out says why
                out = await self._read("", "doom.schedule:out")
            else:
                payload = _storage_payload(reply)
                try:
                    out = parse_printed_snbt(payload) if payload is not None else None
                except SnbtSyntaxError as e:
                    raise PackError(
                        "bad_reply", lazy("Cannot read the page reply: {error}", error=e)
                    ) from None
        if not isinstance(out, dict) or out.get("req") != req:
            raise PackError(
                "no_answer",
                lazy(
                    "The pack on {name} did not answer this page request (its outcome record "
                    "belongs to another request).",
                    name=repr(self.server.name),
                ),
            )
        self._raise_unless_ok(out)
        self._sample_out(out)
        return out

    async def show(self, id: str) -> Task | None:
        """The first task with this id (queue, then offline, then paused), or None."""
        check_id(id)
        for which in TASK_LISTS:
            n = await self._count(f'{which}[{{id:"{id}"}}]')
            if n == 0:
                continue
            if n == 1:
                value = await self._read(f'{which}[{{id:"{id}"}}]')
            else:
                # several share the id: `append from` copies every match in list order, so the
                # first one is element 0 of the copy (4 round trips, whatever the list's length)
                async with self._lock:
                    await self.rcon.command("data modify storage doom.bot:view t set value []")
                    await self.rcon.command(
                        "data modify storage doom.bot:view t append from storage "
                        f'doom.schedule:data {which}[{{id:"{id}"}}]'
                    )
                    value = await self._read("t[0]", "doom.bot:view")
                    await self.rcon.command("data remove storage doom.bot:view t")
            if isinstance(value, dict):
                return task_from_storage(value, which)
        return None

    async def place(self, task: Task) -> str | None:
        """Where a task without executor runs (the pack's `at`: dimension, position, rotation),
        read by its serial; None when it has an executor or is gone."""
        if task.executor is not None:
            return None
        value = await self._read(f"{self._check_list(task.list)}[{{n:{int(task.n)}}}].at")
        return value if isinstance(value, str) else None

    async def find(
        self, which: str, id: str, *, offset: int = 0, limit: int = 20
    ) -> tuple[list[Task], int]:
        """One page of the tasks of one list with exactly this id, and how many there are
        (the dashboard's search). The list is scanned once, by the copy; then 3 round trips
        plus one per task on the page."""
        name = self._check_list(which)
        check_id(id)
        if offset < 0 or not 1 <= limit <= MAX_PAGE:
            raise ValidationError(f"A page holds 1 to {MAX_PAGE} tasks from offset 0 on.")
        found: list[Task] = []
        async with self._lock:
            await self.rcon.command("data modify storage doom.bot:view f set value []")
            await self.rcon.command(
                "data modify storage doom.bot:view f append from storage "
                f'doom.schedule:data {name}[{{id:"{id}"}}]'
            )
            reply = await self.rcon.command("execute if data storage doom.bot:view f[]")
            counted = _COUNT.match(reply)
            total = int(counted.group(1)) if counted else 0
            for index in range(offset, min(total, offset + limit)):
                value = await self._read(f"f[{index}]", "doom.bot:view")
                if isinstance(value, dict):
                    found.append(task_from_storage(value, name))
            await self.rcon.command("data remove storage doom.bot:view f")
        return found, total

    async def task_ids(self, prefix: str = "", limit: int = 25) -> list[str]:
        """Distinct task ids starting with `prefix` (then containing it), for autocomplete."""
        starts: list[str] = []
        contains: list[str] = []
        needle = prefix.lower()
        for which in TASK_LISTS:
            total = await self._count(f"{which}[]")
            if total == 0:
                continue
            ids: list[object]
            if total <= _BULK_IDS:
                # one reply of at most _BULK_IDS ids (<= 66 bytes each)
                async with self._lock:
                    await self.rcon.command("data modify storage doom.bot:view ids set value []")
                    await self.rcon.command(
                        "data modify storage doom.bot:view ids append from storage "
                        f"doom.schedule:data {which}[].id"
                    )
                    value = await self._read("ids", "doom.bot:view")
                    await self.rcon.command("data remove storage doom.bot:view ids")
                ids = value if isinstance(value, list) else []
            else:
                ids = []
                for index in range(min(total, 4 * limit)):
                    ids.append(await self._read(f"{which}[{index}].id"))
            for task_id in ids:
                if not isinstance(task_id, str) or task_id in starts or task_id in contains:
                    continue
                low = task_id.lower()
                if low.startswith(needle):
                    starts.append(task_id)
                elif needle in low:
                    contains.append(task_id)
            if len(starts) >= limit:
                break
        return (starts + contains)[:limit]

    async def event_seq(self) -> int | None:
        """The pack's event counter: the seq of its newest event (None: not readable)."""
        last = await self._read("seq", "doom.schedule:events")
        return last if isinstance(last, int) and not isinstance(last, bool) else None

    async def events_after(self, seq: int) -> list[Event]:
        """Events in the ring buffer with a seq greater than `seq`, oldest first. The pack's
        counter it read is kept in `last_event_seq` (below `seq`: the server went back to an
        older save)."""
        last = await self._read("seq", "doom.schedule:events")
        self.last_event_seq = last if isinstance(last, int) else None
        if not isinstance(last, int) or last <= seq:
            return []
        entries: list[object] = []
        if last - seq <= _EVENT_SINGLE_READS:
            # by seq, not by position from the end: the game ticks between two reads, and an
            # event appended meanwhile would shift `entries[-k]` onto a newer one (seq skipped)
            for wanted in range(seq + 1, last + 1):
                value = await self._read(f"entries[{{seq:{wanted}}}]", "doom.schedule:events")
                if value is not None:
                    entries.append(value)
        else:
            value = await self._read("entries", "doom.schedule:events")
            entries = value if isinstance(value, list) else []
        events = [ev for ev in (self._event(e) for e in entries) if ev is not None and ev.seq > seq]
        events.sort(key=lambda ev: ev.seq)
        return events

    def _event(self, entry: object) -> Event | None:
        if not isinstance(entry, dict):
            return None
        fields = {
            "event": entry.get("type"),
            "id": entry.get("id"),
            "seq": entry.get("seq"),
            "t": entry.get("t"),
        }
        fields.update({k: v for k, v in entry.items() if k not in ("type", "id", "seq", "t")})
        return event_from_fields(
            self.server.name, {k: str(v) for k, v in fields.items() if v is not None}
        )
