"""Per-game displays of the replay viewer, one module per game named after it."""
