"""``python -m bpe_core``: see ``bpe_core.cli``."""

import sys

from .cli import main

sys.exit(main())
