"""The checks that need no ticks: the pack's presence, budget, cancel_all, the broadcast echo;
and the queueing half of the hostile and pause checks (their other half waits for ticks)."""

from __future__ import annotations

__all__ = ["PackChecks"]

from pathlib import Path

from bot.errors import PackError
from bot.i18n import lazy
from bot.minecraft.installer import PACK_ID, is_pack_enabled, pack_version_of
from bot.minecraft.pack_health import DAMAGE_ADVICE
from bot.minecraft.pack_input import snbt_string
from bot.minecraft.selftest import facts
from bot.minecraft.selftest.base import HOSTILE, PAUSE_DELAY, STORAGE, Base

_NO_ARGS = "doom.selftest:none"  # never written: `function #t with` it finds nothing
MANY = 3
PER_DUE_TASK = 25  # commands per due task, rounded up (datapack/README.md, Costs: 23.6)
MIN_BUDGET = 100  # below this not even one task of a tick fits


def public_tags(pack_dir: Path) -> list[str]:
    """The pack's own function tags (its public API), read from the pack folder."""
    root = pack_dir / "data" / "doom.schedule" / "tags" / "function"
    return sorted(
        "doom.schedule:" + p.relative_to(root).with_suffix("").as_posix()
        for p in root.rglob("*.json")
    )


class PackChecks(Base):
    async def _check_pack(self) -> bool:
        rcon = self.rcon
        listed = facts.strip_codes(await rcon.command("datapack list enabled"))
        enabled = is_pack_enabled(listed)
        if enabled:
            self._add(
                "PASS", "pack enabled", lazy("{pack} is in `datapack list enabled`", pack=PACK_ID)
            )
        elif is_pack_enabled(facts.strip_codes(await rcon.command("datapack list available"))):
            self._add(
                "FAIL",
                "pack enabled",
                lazy(
                    "the server has {pack} but it is disabled: run `datapack enable "
                    '"{pack}"` in the server console, or `python -m bot install-datapack` '
                    "(/setup), which enables it",
                    pack=PACK_ID,
                ),
            )
        else:
            self._add(
                "FAIL",
                "pack enabled",
                lazy(
                    "the server does not list {pack}: install it with `python -m bot "
                    "install-datapack` (/setup) or copy datapack/ to "
                    "<world>/datapacks/doom.schedule and /reload",
                    pack=PACK_ID,
                ),
            )
        expected = pack_version_of(self.pack_dir)
        try:
            version: str | None = await self.pack.version()
        except PackError:
            version = None
        if version is None:
            self._add(
                "FAIL",
                "pack version",
                lazy(
                    "doom.schedule:const version is not set: the pack's #load never ran; "
                    "install the pack (`python -m bot install-datapack`) or /reload"
                ),
            )
        elif expected is not None and version != expected:
            self._add(
                "FAIL",
                "pack version",
                lazy(
                    "the server runs doom.schedule {version}, the bot ships {expected}: update "
                    "it with `python -m bot install-datapack` (/setup)",
                    version=version,
                    expected=expected,
                ),
            )
        else:
            self._add("PASS", "pack version", f"doom.schedule {version}")
        await self._check_tags()
        whole = version is None or await self._check_state()  # no pack: nothing to damage
        return enabled and version is not None and whole

    async def _check_state(self) -> bool:
        """The pack's objectives and storages (bot.minecraft.pack_health); False if damaged."""
        damage = await self.pack.damage()
        if damage:
            self._add(
                "FAIL",
                "pack state",
                lazy(
                    "damaged: {problems}. {advice}",
                    problems="; ".join(str(p) for p in damage),
                    advice=DAMAGE_ADVICE,
                ),
            )
            return False
        self._add("PASS", "pack state", lazy("objectives and storages in place"))
        return True

    async def _check_tags(self) -> None:
        """`function #tag with storage <empty>`: vanilla resolves the tag first ("Unknown
        function tag"), then fails reading the arguments, so no function of it runs."""
        names = public_tags(self.pack_dir)
        missing: list[str] = []
        odd: list[str] = []
        for name in names:
            reply = facts.strip_codes(
                await self.rcon.command(f"function #{name} with storage {_NO_ARGS} none")
            )
            if "Found no elements matching" in reply or "Can't find any functions" in reply:
                continue
            if "Unknown function tag" in reply or "Unknown or incomplete command" in reply:
                missing.append(f"#{name}")
            else:
                odd.append(f"#{name} ({reply.strip()[:80]})")
        if missing:
            self._add(
                "FAIL",
                "function tags",
                lazy(
                    "missing on the server: {tags}: its copy of the pack is incomplete or "
                    "disabled; reinstall it with `python -m bot install-datapack`",
                    tags=", ".join(missing),
                ),
            )
        elif odd:
            self._add(
                "WARN",
                "function tags",
                lazy("unexpected answers: {answers}", answers="; ".join(odd)),
            )
        else:
            self._add("PASS", "function tags", lazy("all {n} public tags present", n=len(names)))

    async def _check_budget(self) -> bool:
        """False when the budget is too small for the pack to run at all."""
        rule = await facts.command_budget(self.rcon)
        cap = await facts.storage_int(self.rcon, "doom.schedule:data", "cfg.cap") or 100
        need = cap * PER_DUE_TASK + 100
        if rule is None:
            self._add("WARN", "command budget", lazy("the server answered neither gamerule name"))
            return True
        name, value = rule
        if value < MIN_BUDGET:
            self._add(
                "FAIL",
                "command budget",
                lazy(
                    "gamerule {name} is {value}: not even one task fits in a tick; set it back "
                    "with `gamerule {name} 65536`",
                    name=name,
                    value=value,
                ),
            )
            return False
        elif value < need:
            self._add(
                "WARN",
                "command budget",
                lazy(
                    "gamerule {name} is {value}, but {cap} due tasks a tick (cfg.cap) need "
                    "about {need}: raise the gamerule or lower cfg.cap to {lower}",
                    name=name,
                    value=value,
                    cap=cap,
                    need=need,
                    lower=max(1, (value - 100) // 25),
                ),
            )
        else:
            self._add("PASS", "command budget", f"gamerule {name} = {value} (cfg.cap {cap})")
        return True

    async def _check_cancel_all(self) -> None:
        task_id = self.ids["many"]
        for _ in range(MANY):
            await self.pack.schedule(self._harmless(), PAUSE_DELAY, "t", task_id)
        counted = await self.pack.count(task_id)
        removed = await self.pack.cancel_all(task_id)
        after = await self.pack.count(task_id)
        if (counted, removed, after) == (MANY, MANY, 0):
            self._add("PASS", "cancel_all counts", lazy("{n} counted, {n} removed, 0 left", n=MANY))
        else:
            self._add(
                "FAIL",
                "cancel_all counts",
                lazy(
                    "{n} tasks with one id: count said {counted}, cancel_all removed "
                    "{removed}, {after} left; the pack on the server is not the bundled one: "
                    "reinstall it",
                    n=MANY,
                    counted=counted,
                    removed=removed,
                    after=after,
                ),
            )

    async def _schedule_hostile(self) -> str:
        run = f"data modify storage {STORAGE} got set value {snbt_string(HOSTILE)}"
        task = await self.pack.schedule(run, 0, "t", self.ids["hostile"])
        self._hostile_queued = task.run if task is not None else None
        return run

    async def _pause(self) -> tuple[int, int, int, int | None]:
        """Queue a task, pause it: (due, game time before, after, remaining it kept)."""
        task = await self.pack.schedule(self._harmless(), PAUSE_DELAY, "t", self.ids["pause"])
        before = await self._game_time()
        await self.pack.pause(self.ids["pause"])
        after = await self._game_time()
        shown = await self.pack.show(self.ids["pause"])
        remaining = shown.remaining if shown is not None and shown.list == "paused" else None
        return (task.due if task else -1), before, after, remaining

    def _check_broadcast(self, window: facts.LogWindow) -> None:
        lines = window.lines()
        name = "broadcast-rcon-to-ops"
        props = self.server.properties
        if lines is not None and len(lines) > 0:
            echo = [line for line in lines if f"#echo.{self.token}" in line]
            if echo:
                self._add(
                    "FAIL",
                    name,
                    lazy(
                        "the log shows the bot's RCON commands echoed ({line}): every command "
                        "is shown to online operators; set broadcast-rcon-to-ops=false in "
                        "server.properties and restart",
                        line=echo[0].split("]: ", 1)[-1].strip()[:80],
                    ),
                )
            else:
                self._add("PASS", name, lazy("no echo of the bot's RCON commands in the log"))
        elif props.broadcast_rcon_to_ops:
            self._add(
                "FAIL",
                name,
                lazy(
                    "true in {path}: every command the bot sends is shown to online "
                    "operators; set it to false and restart",
                    path=props.path,
                ),
            )
        elif props.broadcast_rcon_to_ops is None:
            self._add(
                "WARN",
                name,
                lazy(
                    "unknown (no readable log or server.properties; vanilla's default is true, "
                    "which echoes every RCON command to operators)"
                ),
            )
        else:
            if lines is None:
                why = lazy(
                    "false in {path} (the log was not readable during the run)", path=props.path
                )
            else:
                why = lazy(
                    "false in {path} (nothing reached the log during the run)", path=props.path
                )
            self._add("PASS", name, why)
