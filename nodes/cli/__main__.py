"""``python -m nodes.cli``: the ``fedrag`` command (how a federation launches its processes)."""

import sys

from nodes.cli import main

sys.exit(main())
