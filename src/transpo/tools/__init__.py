"""Strength-testing tools: engine matches with Elo and the SPRT (``match``), opening sets
(``openings``), test suites (``epd``).  They may use the engine and the settings; the engine
never imports them."""
