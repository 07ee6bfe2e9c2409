"""``python -m chatparse``: the same as the ``chatparse`` command."""

from chatparse.cli import main

raise SystemExit(main())
