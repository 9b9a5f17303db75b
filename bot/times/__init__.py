"""Time as the bot reads and writes it: the clock (injected in tests), the
`when`/`repeat`/`timezone`/`announce` grammar of planned rows and the time zones a picker offers.
Plain values and parsing, below the store: the wall-clock scheduler that hands rows over at
their time is bot.wallclock."""
