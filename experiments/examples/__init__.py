"""Runnable single-file examples of the suite with other libraries (docs/interop.md, "Examples").

Each module has ``main(argv)`` and a ``--smoke`` mode of a few seconds that CI runs
(``tests/experiments/test_examples.py``).
"""
