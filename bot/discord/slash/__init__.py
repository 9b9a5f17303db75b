"""The Discord side's helpers for the cogs (not a face): command decorators and replies,
permission checks, error messages, embeds fitted to Discord's limits."""
