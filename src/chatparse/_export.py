"""Write conversations to a folder, optionally skipping what an earlier export already wrote.

The state file maps each conversation to the ``fingerprint`` and ``parser_version`` it was last
exported with. A conversation whose pair is unchanged is not parsed again, so a nightly export of
a large history costs one scan. The state file is replaced atomically (written beside it, then
renamed), so an interrupted run leaves either the old state or the new one, never half of one.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Final, Literal

from attrs import define, field

from chatparse import _markdown
from chatparse.model import ConversationMeta, ParsedConversation
from chatparse.serialize import to_json

__all__ = ["FORMATS", "ExportState", "Exporter", "file_name", "pending"]

Format = Literal["jsonl", "json", "markdown"]
FORMATS: Final[tuple[Format, ...]] = ("jsonl", "json", "markdown")
JSONL_FILE: Final = "conversations.jsonl"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_STATE_VERSION: Final = 1


def file_name(source: str, conversation_id: str, suffix: str) -> str:
    """A file name for one conversation, safe on every platform and unique per source and id.

    The readable part is the id with anything unusual replaced; the hash of the real source and
    id keeps ids that differ only in replaced characters or in case (on case-insensitive file
    systems) apart.
    """
    readable = _UNSAFE.sub("_", conversation_id).strip("._")[:80] or "conversation"
    digest = hashlib.sha256(f"{source}\0{conversation_id}".encode()).hexdigest()[:10]
    return f"{readable}-{digest}{suffix}"


def _key(meta: ConversationMeta) -> str:
    return f"{meta.source}\0{meta.id}"


@define
class ExportState:
    """What an earlier export wrote: conversation key → (fingerprint, parser_version)."""

    path: Path | None
    entries: dict[str, list[str]] = field(factory=dict)

    @classmethod
    def load(cls, path: Path | None) -> ExportState:
        """Read the state file; a missing one means nothing was exported yet."""
        if path is None or not path.exists():
            return cls(path)
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("state_version") != _STATE_VERSION:
            msg = f"{path} is not a chatparse export state file (or from another version)"
            raise ValueError(msg)
        return cls(path, {str(k): list(v) for k, v in data["conversations"].items()})

    def unchanged(self, meta: ConversationMeta, parser_version: str) -> bool:
        """Whether this conversation was exported before exactly as it is now."""
        return self.entries.get(_key(meta)) == [meta.fingerprint, parser_version]

    def record(self, meta: ConversationMeta, parser_version: str) -> None:
        """Remember that this conversation has been exported as it is now."""
        self.entries[_key(meta)] = [meta.fingerprint, parser_version]

    def save(self) -> None:
        """Replace the state file atomically."""
        if self.path is None:
            return
        body = json.dumps(
            {"state_version": _STATE_VERSION, "conversations": dict(sorted(self.entries.items()))},
            ensure_ascii=False,
            indent=1,
        )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(body + "\n")
            Path(temporary).replace(self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


@define
class Exporter:
    """Writes conversations under ``out`` in one of :data:`FORMATS`.

    ``json`` and ``markdown`` write one file per conversation, ``<out>/<source>/<file name>``;
    ``jsonl`` appends one line per conversation to ``<out>/conversations.jsonl``, where a later
    line for the same source and id supersedes an earlier one.
    """

    out: Path
    format: Format
    written: list[Path] = field(factory=list)

    def write(self, conversation: ParsedConversation) -> Path:
        """Write one conversation; return the file it went to."""
        if self.format == "jsonl":
            target = self.out / JSONL_FILE
            self.out.mkdir(parents=True, exist_ok=True)
            with target.open("a", encoding="utf-8") as out:
                out.write(to_json(conversation) + "\n")
        else:
            suffix = ".json" if self.format == "json" else ".md"
            folder = self.out / conversation.source
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / file_name(conversation.source, conversation.id, suffix)
            text = (
                to_json(conversation, indent=2) + "\n"
                if self.format == "json"
                else _markdown.render(conversation)
            )
            target.write_text(text, encoding="utf-8")
        self.written.append(target)
        return target


def pending(
    metas: Iterable[ConversationMeta], state: ExportState, parser_versions: dict[str, str]
) -> Iterator[ConversationMeta]:
    """The conversations that changed since the export ``state`` describes."""
    for meta in metas:
        if not state.unchanged(meta, parser_versions[meta.source]):
            yield meta
