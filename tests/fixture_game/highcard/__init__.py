"""High card, the test suite's fixture game: the rules engine and its env (``RULES.md``)."""
