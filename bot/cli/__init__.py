"""The launcher's commands that are more than starting a face (bot.__main__ dispatches to them):
`check` (:mod:`bot.cli.check`), `export` and `import` (:mod:`bot.cli.plan`), `serve`, `token` and
`login` (:mod:`bot.cli.serve`)."""
