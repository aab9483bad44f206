"""A fifth game kept as a test fixture: High card (``highcard``), added the way
``docs/ARCHITECTURE.md`` tells a contributor to add a game, and registered through
``kiaule_env.GAME_MODULES`` (``tests/conftest.py`` names its public module in the
``KIAULE_GAME_MODULES`` environment variable). Every tool and every all-games test picks it up
from its descriptor, which proves that a new game needs no edits elsewhere."""
