"""What the bot keeps in its own SQLite database in the data dir: the audit log and the event
sources' cursors."""
