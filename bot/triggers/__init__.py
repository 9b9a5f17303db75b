"""Triggers: a saved program started when something happens on a server (bot.triggers.model
says which things; bot.triggers.watcher sees them and fires; bot.store.triggers keeps them)."""
