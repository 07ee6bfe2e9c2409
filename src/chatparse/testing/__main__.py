"""``python -m chatparse.testing DIR``: the same as ``chatparse conformance DIR``."""

from chatparse.testing._cli import main

raise SystemExit(main())
