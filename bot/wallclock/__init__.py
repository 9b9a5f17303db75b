"""Wall-clock time: the clock (injected in tests) and the `when`/`repeat`/`timezone`/`announce`
grammar of planned rows. The scheduler that hands rows over to the pack at their time is in
bot.background."""
