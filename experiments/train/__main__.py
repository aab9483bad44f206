"""``python -m experiments.train``: the same as ``kiaule train``."""

import sys

from experiments.train.cli import main

sys.exit(main())
