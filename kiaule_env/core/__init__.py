"""Machinery shared by every game: observation layouts, stacked-deck options, the AEC base env."""
