"""Runnable studies and the ``kiaule`` command line: demo, bench, soak (and more per issue)."""
