"""What the bot keeps in its own SQLite database in the data dir: the audit log and the event
sources' cursors, the ledger, the planned rows and their runs, the game-time runs it knows of,
the Discord events and the calendar feeds."""
