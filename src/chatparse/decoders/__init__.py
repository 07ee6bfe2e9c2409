"""Streaming readers for the containers AI coding assistants write: one module per format.

Adapters read through these modules and never call ``json``, ``orjson``, ``ijson`` or ``sqlite3``
themselves, so that every source gets the same tolerance for damaged input, the same string repair
and the same memory bound: memory follows the size of what is yielded, never the size of the file.

- :mod:`chatparse.decoders.jsonl` reads JSON Lines, one record or one malformed marker per line.
- :mod:`chatparse.decoders.bigjson` streams items out of one large JSON document.
- :mod:`chatparse.decoders.sqlite` reads a consistent, read-only snapshot of a live database.
- :mod:`chatparse.decoders.text` repairs and cleans the strings the others yield.

The format modules share their names where the idea is the same: ``backend_name()`` says which
library does the work, and ``Malformed`` marks input that could not be decoded, with its position.
Nothing is imported here, so ``import chatparse.decoders.text`` does not pull in ``sqlite3``.
"""

__all__: list[str] = []
