"""What a source (adapter) name looks like; one rule for the model, the registry and the kit.

Kept in a module of its own, importing nothing, so that the model can check names without
importing the adapter protocol.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["SOURCE_NAME"]

SOURCE_NAME: Final = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
"""Lower-case words of letters and digits joined by single hyphens: ``claude-code``, ``pi``."""
