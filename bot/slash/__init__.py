"""The Discord side's helpers (not a face): cog decorators and replies, permission checks, error
messages, the local stand-in for Discord and the console front end built on it. Named `slash`
so that it never shadows the `discord` package."""
