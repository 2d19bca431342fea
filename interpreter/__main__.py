"""`python -m rulecraft` is the `rulecraft` command."""

import sys

from .cli import main

sys.exit(main())
