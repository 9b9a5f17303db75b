"""The Discord side's helpers (not a face): cog decorators and replies, permission checks, error
messages, and the console front end on the local Discord (bot.localdiscord). Named `slash` so
that it never shadows the `discord` package."""
