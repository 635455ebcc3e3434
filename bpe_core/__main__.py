"""``python -m bpe_core``: see ``bpe_core.cli.main``."""

import sys

from bpe_core.cli.main import main

sys.exit(main())
