"""A started program's steps made into planned rows, at their time, and what each step is.

Each step becomes a one-shot wall-clock row (``Scheduler.create_at``) with the task id
``<program>.<run>.<step>``: the planned rows' machinery hands it over exactly once (its run
recorded before the hand-over, the pack's mark, the crash guard). The runner decides only when a
step's row is made:

- a step without `after`: at the start, due at start + its offset;
- a step with `after: N`: once step N's run is recorded `ran` (the run record the hand-over and
  the pack's events write: bot.store.schedule_runs), due at max(start + offset, now); when step
  N failed, or did not succeed by start + offset + limit, the step's `on_failure` says: `skip`
  marks it skipped, `stop` cancels it and every remaining step, `continue` makes it anyway. A
  run that the pack's later event turns from `ran` into a failure (a command that failed in
  game) applies the policy to a dependent step not run yet.

A step's state is read from its row and its run record (:meth:`ProgramRunner.view`), never kept
beside them. The runner looks at the running programs of the servers this process holds every
`interval` seconds and when woken, reading all their steps in one query; a look is idempotent
(a row made but not linked, by a stop between the two, is found by its task id and linked, never
made twice), so a restart only looks again.
"""

from __future__ import annotations

__all__ = ["TERMINAL", "ProgramRunner", "StepState", "StepView", "step_task_id"]

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from bot.aio import cancel_and_wait
from bot.errors import ValidationError
from bot.i18n import lazy
from bot.programs.looks import look_every
from bot.programs.model import Step, limit_seconds, steps_of_json
from bot.store.programs import Program, ProgramRun, ProgramStore, StepRow
from bot.store.schedules import ACTIVE_STATES, Creator
from bot.wallclock.scheduler import Scheduler

log = logging.getLogger(__name__)

StepState = Literal["waiting", "planned", "ran", "failed", "skipped", "cancelled"]
TERMINAL: tuple[StepState, ...] = ("ran", "failed", "skipped", "cancelled")
INTERVAL = 1.0  # seconds between looks at the running programs
MAX_LOOK = 10_000  # running programs one look reads
# a run's outcomes while it may still run (bot.store.schedule_runs)
_OPEN = ("sending", "queued", "waiting_player", "paused", "waited")


def step_task_id(run: ProgramRun, step: int) -> str:
    return f"{run.program}.{run.id}.{step}"


@dataclass(frozen=True, slots=True)
class StepView:
    """A step of a run as it stands: its state, its row's due time and its run's outcome."""

    number: int
    step: Step
    state: StepState
    due: datetime | None = None
    outcome: str | None = None
    schedule_id: int | None = None
    row_state: str | None = None  # its planned row's (active, paused, done...)


def _state(step: Step, row: StepRow) -> StepView:
    """A step's state from its row and its run record (and what the program decided)."""
    if row.schedule_id is None:
        return StepView(row.step, step, row.status or "waiting")  # type: ignore[arg-type]
    outcome = row.outcome
    state: StepState
    if outcome == "ran":
        state = "ran"
    elif row.status in ("skipped", "cancelled", "failed"):
        state = row.status  # type: ignore[assignment]
    elif outcome is None or outcome in _OPEN:
        state = "cancelled" if row.row_state == "cancelled" and outcome is None else "planned"
        outcome = None
    elif outcome == "cancelled":
        state = "cancelled"
    else:
        state = "failed"
    return StepView(row.step, step, state, row.due, outcome, row.schedule_id, row.row_state)


class ProgramRunner:
    """Starts programs and keeps their runs going (see the module's text)."""

    def __init__(self, store: ProgramStore, scheduler: Scheduler, interval: float = INTERVAL):
        self.store = store
        self.scheduler = scheduler
        self.interval = interval
        self._lock = asyncio.Lock()  # one look or change at a time in this process
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._steps: dict[tuple[str, int], list[Step]] = {}  # a version's steps never change

    # -- life -----------------------------------------------------------------------------------

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="program-runner")

    async def stop(self) -> None:
        task, self._task = self._task, None
        await cancel_and_wait(task)

    def wake(self) -> None:
        self._wake.set()

    async def saw_event(self, event: object, request: object) -> None:
        """A pack event about a task the bot made (the crash guard's hook, after the run
        history recorded it): a step's run may have ended, so look now, not at the next tick."""
        self._wake.set()

    async def _loop(self) -> None:
        await look_every(self.look, self._wake, self.interval, "the running programs")

    # -- the operations -------------------------------------------------------------------------

    async def start_program(
        self,
        program: Program,
        server: str,
        start: datetime,
        by: Creator,
        *,
        fire_id: int | None = None,
        player: str | None = None,
        occurrence: tuple[int, datetime] | None = None,
    ) -> ProgramRun:
        """A run of this version on `server` from `start`: every step's command checked on the
        server first (nothing is stored on a refusal), then its steps without `after` made.
        `player` runs the steps that name no `as_player` (a trigger's player); a trigger's
        firing (`fire_id`) or a repeat's occurrence (`occurrence`: repeat id, instant; see
        bot.programs.repeats) starts one run only, however often this is called for it."""
        steps = self.check(program, server, player)
        async with self._lock:
            run = await self.store.start(
                program,
                server,
                start,
                len(steps),
                by,
                self.scheduler.clock.now(),
                fire_id=fire_id,
                player=player,
                occurrence=occurrence,
            )
            await self._advance(run)
        return run

    def check(self, program: Program, server: str, player: str | None = None) -> list[Step]:
        """The program's steps, each command checked on `server` as its step's row would be;
        ValidationError naming the first step refused otherwise."""
        checked = self.check_each(program, server, player)
        for number, (_step, refused) in enumerate(checked, 1):
            if refused is not None:
                raise ValidationError(
                    lazy("Step {n}: {problem}", n=number, problem=refused.text), field="steps"
                )
        return [step for step, _refused in checked]

    def check_each(
        self, program: Program, server: str, player: str | None = None
    ) -> list[tuple[Step, ValidationError | None]]:
        """Each step with the refusal its row would get on `server` (None: it would be taken),
        run as `player` where it names no `as_player` (the dry runs show them all)."""
        checked: list[tuple[Step, ValidationError | None]] = []
        for number, step in enumerate(steps_of_json(program.steps), 1):
            try:
                self.scheduler.rules.check_row(
                    server,
                    step.run,
                    f"{program.name}.0.{number}",
                    0,
                    1,
                    step.as_player or player,
                    step.conditions(),
                )
                checked.append((step, None))
            except ValidationError as exc:
                checked.append((step, exc))
        return checked

    async def view(self, run: ProgramRun) -> list[StepView]:
        """Each step of the run as it stands."""
        steps = await self._steps_of(run)
        if steps is None:
            return []
        rows = (await self.store.step_rows([run.id]))[run.id]
        return [_state(steps[row.step - 1], row) for row in rows]

    async def cancel(self, run: ProgramRun) -> ProgramRun | None:
        """Cancel the remaining steps; None: the run had ended."""
        async with self._lock:
            changed = await self.store.set_state(run.id, "cancelled", ("running", "paused"))
            if changed is not None:
                await self._cancel_rest(changed)
            return changed

    async def pause(self, run: ProgramRun) -> ProgramRun | None:
        """Pause the planned steps' rows and make no new ones; None: it was not running."""
        async with self._lock:
            changed = await self.store.set_state(run.id, "paused", ("running",))
            if changed is not None:
                for view in await self.view(changed):
                    if view.schedule_id is not None and view.row_state == "active":
                        with contextlib.suppress(ValidationError):
                            await self.scheduler.pause(view.schedule_id)
            return changed

    async def resume(self, run: ProgramRun) -> ProgramRun | None:
        """Resume the paused steps' rows (late ones under the late rules); None: not paused."""
        async with self._lock:
            changed = await self.store.set_state(run.id, "running", ("paused",))
            if changed is not None:
                for view in await self.view(changed):
                    if view.schedule_id is not None and view.row_state == "paused":
                        with contextlib.suppress(ValidationError):
                            await self.scheduler.resume(view.schedule_id)
                await self._advance(changed)
            return changed

    # -- the looks ------------------------------------------------------------------------------

    async def look(self) -> None:
        """Every running program of a server this process holds, moved on as its steps say."""
        async with self._lock:
            runs = [
                r
                for r in await self.store.runs(("running",), limit=MAX_LOOK)
                if self.scheduler.owns(r.server)
            ]
            rows = await self.store.step_rows([r.id for r in runs])
            for run in runs:
                await self._advance(run, rows[run.id])

    async def _steps_of(self, run: ProgramRun) -> list[Step] | None:
        key = (run.program, run.version)
        if key not in self._steps:
            program = await self.store.version(run.program, run.version)
            if program is None:
                return None
            self._steps[key] = steps_of_json(program.steps)
        return self._steps[key]

    async def _advance(self, run: ProgramRun, rows: list[StepRow] | None = None) -> None:
        steps = await self._steps_of(run)
        if steps is None:
            return
        if rows is None:
            rows = (await self.store.step_rows([run.id]))[run.id]
        views = {row.step: _state(steps[row.step - 1], row) for row in rows}
        now = self.scheduler.clock.now()
        for number, view in list(views.items()):
            step = view.step
            due = run.start + timedelta(seconds=step.offset)
            if step.after is None:
                if view.state == "waiting":
                    views[number] = await self._make(run, number, step, due)
                continue
            before = views[step.after]
            failed = before.state in ("failed", "skipped", "cancelled")
            if view.state == "waiting":
                if before.state == "ran":
                    views[number] = await self._make(run, number, step, max(due, now))
                    continue
                deadline = due + timedelta(seconds=limit_seconds(step.limit))
                if not failed and now < deadline:
                    continue
            elif not (view.state == "planned" and failed):
                continue  # made, or ended; a made step not run yet whose `after` failed since
            if step.on_failure == "stop":
                log.info("program %s run %d: step %d stops it", run.program, run.id, number)
                if await self.store.set_state(run.id, "stopped", ("running",)) is not None:
                    await self._cancel_rest(run)
                return
            if step.on_failure == "skip":
                if view.schedule_id is not None:
                    with contextlib.suppress(ValidationError):
                        await self.scheduler.cancel(view.schedule_id)
                await self.store.mark(run.id, number, "skipped")
                views[number] = await self._view_of(run, number, step)
            elif view.state == "waiting":  # continue: run it anyway
                views[number] = await self._make(run, number, step, max(due, now))
        if all(v.state in TERMINAL for v in views.values()):
            await self.store.set_state(run.id, "done", ("running",))

    async def _view_of(self, run: ProgramRun, number: int, step: Step) -> StepView:
        rows = (await self.store.step_rows([run.id]))[run.id]
        return _state(step, next(row for row in rows if row.step == number))

    async def _make(self, run: ProgramRun, number: int, step: Step, due: datetime) -> StepView:
        """The step's row, made once: one left unlinked by a stop between making and linking is
        found by its task id."""
        task_id = step_task_id(run, number)
        made = await self.scheduler.store.rows_of(run.server, task_id)
        if made:
            row = made[-1]
        else:
            try:
                row = await self.scheduler.create_at(
                    due=due,
                    server=run.server,
                    command=step.run,
                    task_id=task_id,
                    created_by=run.created_by,
                    as_player=step.as_player or run.player,
                    conditions=step.conditions() or None,
                )
            except ValidationError as exc:  # refused now (the server's rules changed): failed
                log.warning("program %s run %d step %d: %s", run.program, run.id, number, exc)
                await self.store.mark(run.id, number, "failed")
                return StepView(number, step, "failed", outcome=str(exc.text))
        await self.store.link(run.id, number, row.id)
        # another process may have cancelled or paused the run since this look read it
        now = await self.store.run(run.id)
        if now is not None and now.state != "running":
            with contextlib.suppress(ValidationError):
                if now.state == "paused":
                    await self.scheduler.pause(row.id)
                else:
                    await self.scheduler.cancel(row.id)
        return await self._view_of(run, number, step)

    async def _cancel_rest(self, run: ProgramRun) -> None:
        """Every step not ended: its row cancelled, or it is marked cancelled."""
        for view in await self.view(run):
            if view.state in TERMINAL:
                continue
            if view.schedule_id is None:
                await self.store.mark(run.id, view.number, "cancelled")
            elif view.row_state in ACTIVE_STATES:
                with contextlib.suppress(ValidationError):
                    await self.scheduler.cancel(view.schedule_id)
