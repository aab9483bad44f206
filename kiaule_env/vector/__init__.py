"""Batched, compiled environments: many games of one kind stepped at once, with observations."""
