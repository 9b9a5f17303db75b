"""Programs: a named, versioned list of steps (an event evening: a countdown, a start, rounds,
a reward, a clean-up), each a command at an offset from the program's start or after an
earlier step succeeded.

What a program is, declared once (model.py: the steps as moderators write them, in YAML, and
their limits), and how a started program runs (runner.py): each step becomes a one-shot
wall-clock row (bot.wallclock), so a step has the planned rows' guarantees (recorded before it
is handed over, never twice, missed or late by the late rules); the runner only decides when a
step's row is made, from the rows' recorded outcomes. The store is bot.store.programs; the
operations every face has are bot.operations.programs.

Above the wall clock and the store, below the operations, whose core starts the runner
(bot.core.Core.start)."""
