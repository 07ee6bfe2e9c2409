"""The Antigravity adapter: where it looks (detect, explain), what it lists (scan), how it reads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

from chatparse.adapter import build_conversation, is_dir, is_file, require_file
from chatparse.adapters.antigravity.locate import (
    LAYOUTS,
    LOGS,
    ROOTS,
    Found,
    brain_folders,
    found_in,
    gemini_dir,
    meta_of,
    root_of,
    workspace_of,
)
from chatparse.adapters.antigravity.steps import READERS, RESULT_TYPES, read_transcript
from chatparse.adapters.windsurf.opaque import describe_store
from chatparse.adapters.windsurf.records import first_object
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["AntigravityAdapter"]

_STEP_KEYS: Final = ("step_index", "source", "type")
"""What the first line of a transcript has, and no Gemini CLI record has."""
_PB: Final = (
    "encrypted (the key is in the OS keychain): chatparse cannot read them and does not try"
)
_DB: Final = (
    "SQLite whose steps and usage are protobuf without a published schema: not read (the "
    "plaintext transcripts are)"
)


class AntigravityAdapter:
    """Reads Google Antigravity's plaintext transcripts (IDE 1.x/2.x, ``agy`` CLI).

    .. versionadded:: 0.3
    """

    name = "antigravity"
    display_name = "Google Antigravity"
    parser_version = "1"

    def detect(self, host: Host) -> SourceInfo | None:
        """The roots under ``~/.gemini`` that have a ``brain/`` folder."""
        base = gemini_dir(host)
        roots = tuple(str(base / name) for name in ROOTS if is_dir(base / name / "brain"))
        if not roots:
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=roots)

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per id, listed by stat.

        Of its copies, ``transcript_full.jsonl`` wins over ``transcript.jsonl``, then the root
        that comes first in :data:`~chatparse.adapters.antigravity.locate.ROOTS`.
        """
        chosen: dict[str, Found] = {}
        for root in map(Path, source.roots):
            rank = ROOTS.index(root.name) if root.name in ROOTS else len(ROOTS)
            for found in found_in(root, rank):
                known = chosen.get(found.conversation_id)
                if known is None or found.rank < known.rank:
                    chosen[found.conversation_id] = found
        yield from filter(None, (meta_of(self.name, chosen[ident]) for ident in sorted(chosen)))

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Read one transcript; the workspace from the root's ``history.jsonl`` when it has it."""
        path = require_file(meta.path, "transcript")
        short = meta.locator.get("layout", "short") != "full"
        transcript = read_transcript(path, double_encoded=short)
        root = root_of(path)
        return build_conversation(
            self,
            meta,
            [draft.freeze() for draft in transcript.drafts],
            transcript.ledger,
            project_path=workspace_of(root, meta.id) if root is not None else None,
        )

    # Optional protocols: PathSniffer (sniff, scan_path) and Explainer (explain).

    def sniff(self, path: Path) -> float:
        """How sure the adapter is that ``path`` is an Antigravity transcript, from its first line.

        Its steps have ``step_index``, ``source`` and ``type``, which no Gemini CLI record has;
        surest under the transcript's own name.
        """
        value = first_object(path)
        if value is None or not all(key in value for key in _STEP_KEYS):
            return 0.0
        kind = value.get("type")
        if not isinstance(kind, str):
            return 0.0
        known = kind in READERS or kind in RESULT_TYPES or value.get("source") == "MODEL"
        named = path.name in LAYOUTS.values()
        return (0.95 if named else 0.7) if known else 0.4

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The one conversation in a transcript: named by its ``brain/<id>`` folder if in one."""
        layout = "full" if path.name == LAYOUTS["full"] else "short"
        ident = path.parents[2].name if root_of(path) is not None else path.stem
        return iter(filter(None, [meta_of(self.name, Found(ident, path, layout, (0, 0)))]))

    def explain(self, host: Host) -> Iterator[str]:
        """Where Antigravity's conversations are looked for on ``host``, for ``doctor``."""
        base = gemini_dir(host)
        yield (
            f"{base}: {'exists' if is_dir(base) else 'missing'} (shared with Gemini CLI, whose "
            "tmp/ is left to the gemini-cli adapter; no variable moves Antigravity's roots)"
        )
        for name in ROOTS:
            root = base / name
            if not is_dir(root):
                yield f"{root}: missing"
                continue
            yield from _explain_root(root)


def _explain_root(root: Path) -> Iterator[str]:
    """One root: its transcripts, its artifact-only conversations, its unreadable stores."""
    folders = brain_folders(root)
    read = {found.conversation_id: found.layout for found in found_in(root, 0)}
    layouts = [read[folder.name] for folder in folders if folder.name in read]
    yield (
        f"{root / 'brain'}: {len(folders)} conversation folder(s), {layouts.count('full')} "
        f"with {LAYOUTS['full']} and {layouts.count('short')} with only {LAYOUTS['short']} "
        f"(under {'/'.join(LOGS)}), read"
    )
    artifacts = len(folders) - len(layouts)
    if artifacts:
        yield (
            f"{artifacts} conversation folder(s) hold only Markdown artifacts (task.md, "
            "implementation_plan.md, ...): the agent's documents, not the conversation; not read"
        )
    conversations = root / "conversations"
    if is_dir(conversations):
        yield describe_store(conversations, ".pb", _PB)
        yield describe_store(conversations, ".db", _DB)
    else:
        yield f"{conversations}: missing"
    if is_file(root / "history.jsonl"):
        yield f"{root / 'history.jsonl'}: read for each conversation's workspace"
