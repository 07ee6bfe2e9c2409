"""A session's ``store.db``: its agent record and its content-addressed blobs.

Two tables (``cursor-agent`` 2026, per third-party readers; Cursor is closed source):

* ``meta(key, value)``: key ``0`` holds the agent record as JSON, hex-encoded or plain:
  ``{agentId, name, mode, createdAt (ms), lastUsedModel, latestRootBlobId, workspacePath?,
  blobEncryptionKey?}``. The key is never read into the output.
* ``blobs(id, data)``, ``id`` the SHA-256 of ``data``. A blob is a JSON message in the Vercel AI
  SDK's shape (``role`` system, user, assistant or tool; ``content``; ``createdAt`` in ms;
  ``providerOptions.cursor.modelName``), or a node of the turn graph in protobuf, whose schema
  is not published. Messages are read in ``rowid`` order (nothing else orders them); graph nodes
  are counted as skipped and never guessed at. When the agent record names a
  ``blobEncryptionKey``, blobs that are not JSON are encrypted: counted as such, and said.

Records: each row of ``meta``, each block of a message blob, each other blob.
"""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path
from typing import Any, Final

from chatparse.adapter import Ledger, as_epoch, as_nonempty_text, as_text, dig
from chatparse.adapters.cursor_cli.content import Reading, read_content
from chatparse.decoders import sqlite
from chatparse.decoders.value import Invalid, decode, encode
from chatparse.errors import SourceUnavailableError

__all__ = ["Agent", "read_agent", "read_store", "survey"]

_MESSAGE_ROLES: Final = ("user", "assistant", "tool")
_META_KEY: Final = "0"


class Agent:
    """The agent record's fields the output uses."""

    __slots__ = ("created", "encrypted", "model", "name", "workspace")

    def __init__(self, record: dict[str, Any]) -> None:
        self.name = as_nonempty_text(record.get("name"))
        self.created = as_epoch(record.get("createdAt"), "ms")
        self.workspace = as_nonempty_text(record.get("workspacePath"))
        self.model = as_nonempty_text(record.get("lastUsedModel"))
        self.encrypted = bool(record.get("blobEncryptionKey"))


def _agent_value(text: str) -> dict[str, Any] | None:
    """The agent record from its stored text: hex-encoded JSON, or plain JSON."""
    candidate: str | bytes = text  # plain JSON, as some builds write it
    with suppress(ValueError):
        candidate = bytes.fromhex(text)
    value = decode(candidate)
    return value if isinstance(value, dict) else None


def read_agent(snapshot: sqlite.Snapshot, ledger: Ledger) -> Agent:
    """Read every row of ``meta``; the agent record is key ``0``."""
    agent = Agent({})
    for row in snapshot.iter_rows("meta", ("key", "value")):
        key, value = row.values
        if key != _META_KEY:
            ledger.skip("store meta entry")
            continue
        record = _agent_value(value) if isinstance(value, str) else None
        if record is None:
            ledger.bad(f"meta[{key}]", "not an agent record (hex or plain JSON)")
            continue
        agent = Agent(record)
        ledger.use()
    return agent


def _message(reading: Reading, value: dict[str, Any], blob: str) -> None:
    role = value["role"]
    draft = reading.draft(blob, "user" if role == "tool" else role)
    draft.timestamp = as_epoch(value.get("createdAt"), "ms")
    draft.model = as_nonempty_text(dig(value, "providerOptions", "cursor", "modelName"))
    read_content(reading, draft, value.get("content"), f"blob {blob}")


def read_store(path: Path, reading: Reading) -> Agent:
    """Read the store at ``path`` into ``reading``; the agent record it holds."""
    ledger = reading.ledger
    with sqlite.open_snapshot(path) as snapshot:
        tables = snapshot.tables()
        if not {"meta", "blobs"} <= tables:
            ledger.warn(f"{path.name}: no meta and blobs tables; not a store this adapter knows")
            return Agent({})
        agent = read_agent(snapshot, ledger)
        for rowid, ident, data in snapshot.iter_rows_raw("blobs", ("id", "data")):
            named = ident.decode("utf-8", "replace") if isinstance(ident, bytes) else ident
            blob = as_nonempty_text(named) or f"rowid-{rowid}"
            raw = data if isinstance(data, bytes) else str(data).encode()
            value = decode(raw) if raw[:1] == b"{" else Invalid("not JSON")
            if isinstance(value, Invalid):
                ledger.skip("encrypted blob" if agent.encrypted else "turn-graph node (protobuf)")
            elif isinstance(value, dict) and value.get("role") == "system":
                ledger.skip("system prompt")
            elif isinstance(value, dict) and value.get("role") in _MESSAGE_ROLES:
                _message(reading, value, blob)
            else:
                ledger.keep(f"blob {blob}", as_text(dig(value, "type")), encode(value))
    if agent.encrypted:
        ledger.warn("the store's blobs are encrypted (blobEncryptionKey): only JSON blobs read")
    return agent


def survey(path: Path) -> str:
    """What a store holds, for ``chatparse doctor``: readable messages, graph nodes, encryption."""
    reading = Reading()
    ledger = reading.ledger
    try:
        agent = read_store(path, reading)
    except SourceUnavailableError as exc:
        return f"{path}: cannot be read ({exc})"
    graph = ledger.skipped["turn-graph node (protobuf)"]
    encrypted = ledger.skipped["encrypted blob"]
    said = f"{path}: {len(reading.drafts)} readable message(s)"
    if graph:
        said += f", {graph} turn-graph blob(s) in protobuf (no published schema: not read)"
    if agent.encrypted:
        said += f", encrypted (blobEncryptionKey): {encrypted} blob(s) cannot be read"
    return said
