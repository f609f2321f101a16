"""``python -m structpred``: the same as the ``structpred`` command."""

import sys

from .cli import main

sys.exit(main())
