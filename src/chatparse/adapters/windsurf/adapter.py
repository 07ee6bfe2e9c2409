"""The Windsurf adapter: where it looks (detect, explain), what it lists (scan), how it reads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

from chatparse.adapter import build_conversation, is_dir, is_file, require_file
from chatparse.adapters.windsurf.locate import (
    HOOK_EVENT,
    HOOK_FILES,
    OPAQUE_FOLDERS,
    codeium_dir,
    meta_of,
    transcript_files,
    transcripts_dir,
)
from chatparse.adapters.windsurf.opaque import describe_store
from chatparse.adapters.windsurf.records import first_object
from chatparse.adapters.windsurf.steps import READERS, read_transcript
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["WindsurfAdapter"]

_HOOKS_LIMIT: Final = 1 << 20  # a hooks.json larger than this is not looked into
_ENCRYPTED: Final = (
    "Cascade's own conversations, encrypted (a key per conversation): chatparse cannot read "
    "them and does not try"
)


def _names_hook(path: Path) -> bool | None:
    """Whether the hook configuration at ``path`` names the transcript event; ``None``: no file."""
    if not is_file(path):
        return None
    try:
        with path.open("rb") as stream:
            return HOOK_EVENT.encode() in stream.read(_HOOKS_LIMIT)
    except OSError:
        return False


class WindsurfAdapter:
    """Reads Windsurf's Cascade hook transcripts; explains the encrypted Cascade store.

    .. versionadded:: 0.3
    """

    name = "windsurf"
    display_name = "Windsurf"
    parser_version = "1"

    def detect(self, host: Host) -> SourceInfo | None:
        """The transcripts folder, when it holds at least one transcript."""
        folder = transcripts_dir(host)
        if not is_dir(folder) or not transcript_files(folder):
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=(str(folder),))

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per transcript file, named by its trajectory id; by stat only."""
        for root in map(Path, source.roots):
            yield from filter(None, (meta_of(self.name, p) for p in transcript_files(root)))

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Read one transcript: prompts, answers and each tool step as a call with its result."""
        transcript = read_transcript(require_file(meta.path, "transcript"))
        return build_conversation(
            self,
            meta,
            [draft.freeze() for draft in transcript.drafts],
            transcript.ledger,
            project_path=transcript.cwd,
        )

    # Optional protocols: PathSniffer (sniff, scan_path) and Explainer (explain).

    def sniff(self, path: Path) -> float:
        """How sure the adapter is that ``path`` is a Cascade transcript, from its first line.

        A step is ``{"type": T, "status": ..., T: {...}}`` with a known ``T``; surest in
        ``.windsurf/transcripts``.
        """
        value = first_object(path)
        kind = value.get("type") if value is not None else None
        if value is None or not (isinstance(kind, str) and kind in READERS):
            return 0.0
        if not isinstance(value.get(kind), dict) or "status" not in value:
            return 0.0
        return 0.95 if path.parent.name == "transcripts" else 0.7

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The one conversation in a transcript file."""
        return iter(filter(None, [meta_of(self.name, path)]))

    def explain(self, host: Host) -> Iterator[str]:
        """Where Windsurf's conversations are looked for on ``host``, for ``chatparse doctor``."""
        folder = transcripts_dir(host)
        if is_dir(folder):
            yield f"{folder}: {len(transcript_files(folder))} hook transcript(s), read"
        else:
            yield (
                f"{folder}: missing (Windsurf writes a transcript per conversation only for the "
                f"{HOOK_EVENT} hook)"
            )
        for relative in HOOK_FILES:
            named = _names_hook(host.home / relative)
            if named is not None:
                said = "names" if named else "does not name"
                yield f"{host.home / relative}: {said} the {HOOK_EVENT} hook"
        store = codeium_dir(host)
        for name in OPAQUE_FOLDERS:
            yield describe_store(store / name, ".pb", _ENCRYPTED)
        yield (
            "Devin Desktop is Windsurf renamed: it writes to the same folders; Cascade keeps "
            "only its ~20 latest conversations"
        )
