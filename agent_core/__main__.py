"""``python -m agent_core``: the Sparrow command line."""

import sys

from agent_core.cli import main

sys.exit(main())
