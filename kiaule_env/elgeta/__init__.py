"""Elgeta (Beggar), RULES §4: rules engine, encoders and AEC env; public module ``elgeta_v0``."""
