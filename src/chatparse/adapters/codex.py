"""Codex CLI: the rollout files OpenAI's Codex CLI writes, in all three of their shapes.

Where they are: ``$CODEX_HOME``, else ``~/.codex``. ``sessions/`` holds one rollout per thread,
in date folders ``YYYY/MM/DD/`` or (older) flat; ``archived_sessions/`` holds the threads
``codex archive`` moved away, flat. ``session_index.jsonl`` names threads: one
``{"id", "thread_name", "updated_at"}`` line per rename, the last line for an id wins.

The three shapes of a rollout:

* **Modern JSON Lines** (Sep 2025 on): every line is ``{"timestamp", "type", "payload"}``; the
  first is ``session_meta``.
* **Bare early-Rust JSON Lines** (until about Sep 2025): the first line is a bare
  ``{"id", "timestamp", "instructions"?, "git"?}``, then bare response items with no timestamp,
  and ``{"record_type": "state"}`` markers.
* **The TypeScript CLI's JSON document** (spring 2025): ``rollout-<date>-<uuid>.json`` holding
  ``{"session": {"id", "timestamp", "instructions"}, "items": [<response items>]}``.

One conversation is told twice in a modern rollout. ``response_item`` records are what the model
saw: messages, reasoning, tool calls and their outputs, plus injected context (environment,
AGENTS.md, developer instructions) that nobody typed. ``event_msg`` records are what the person
saw: ``user_message``, ``agent_message``, ``agent_reasoning``, ``token_count``. Every typed
prompt, answer and reasoning summary is in both. The two copies of one thing are paired within
the user's turn, by order of arrival for each shape (the n-th ``agent_message`` of a turn is the
n-th assistant ``message`` item of that turn), never by comparing texts: the copies may differ
in whitespace, and arrive in either order. The ``event_msg`` copy's text wins; a copy without its
partner stands alone.

A model response (one request to the model) is one assistant :class:`~chatparse.model.Message`:
its reasoning summary is ``thinking``, its text is ``text``, its tool calls are ``tool_calls``
with their outputs paired by ``call_id``, and the ``token_count`` that follows it gives its
``usage``. Within a response, items come in the order reasoning, text, calls; an item that goes
back in that order, or a second text, starts the next response.

See ``docs/sources/codex.md`` for what is kept, what is skipped and why.
"""

from __future__ import annotations

import re
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final, TypeAlias

from attrs import Factory, define, frozen

from chatparse.adapters import _build
from chatparse.adapters._fields import as_count, as_datetime, as_text, dig
from chatparse.adapters._paths import walk_files
from chatparse.decoders import bigjson, jsonl
from chatparse.decoders import value as jsonvalue
from chatparse.decoders.text import strip_data_uri_images
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import (
    ConversationMeta,
    Diagnostics,
    ImageRef,
    Message,
    MessageKind,
    ParsedConversation,
    Role,
    SourceInfo,
    UnknownRecord,
    Usage,
)

__all__ = ["CodexAdapter"]

# --- where the files are ---------------------------------------------------------------------

SESSIONS: Final = "sessions"
ARCHIVED: Final = "archived_sessions"
SESSION_INDEX: Final = "session_index.jsonl"

_UUID: Final = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)

# --- what the records say --------------------------------------------------------------------

# The IDE extension wraps the typed prompt in context; what was typed follows this marker.
IDE_REQUEST_MARKER: Final = "## My request for Codex:"

# User-role text that the harness injected rather than a person typed.
INJECTED_PREFIXES: Final = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<INSTRUCTIONS>",
    "<permissions instructions>",
    "<collaboration_mode>",
    "<apps_instructions>",
    "<skills_instructions>",
    "<plugins_instructions>",
    "<multi_agent_mode>",
    "<realtime_conversation>",
)
_INJECTED_EVENT_KINDS: Final = frozenset({"environment_context", "user_instructions"})
_CWD_IN_CONTEXT: Final = re.compile(r"<cwd>(.*?)</cwd>", re.DOTALL)

# Known records that carry nothing for the transcript, by top-level type ...
SKIPPED_RECORDS: Final = frozenset(
    {"world_state", "inter_agent_communication", "inter_agent_communication_metadata"}
)
# ... by response_item type ...
SKIPPED_ITEMS: Final = frozenset({"ghost_snapshot"})
# ... and by event_msg type: lifecycle markers, and events that repeat a response_item (the
# ``*_end`` events of tools whose call and output are response items) or the session index.
SKIPPED_EVENTS: Final = frozenset(
    {
        "task_started",
        "task_complete",
        "turn_started",
        "turn_complete",
        "context_compacted",
        "entered_review_mode",
        "exited_review_mode",
        "undo_completed",
        "agent_reasoning_raw_content",
        "agent_reasoning_section_break",
        "item_completed",
        "image_generation_end",
        "injected_message",
        "guardian_assessment",
        "web_search_end",
        "exec_command_end",
        "patch_apply_end",
        "mcp_tool_call_end",
        "view_image_tool_call",
        "collab_agent_spawn_end",
        "collab_agent_interaction_end",
        "collab_waiting_end",
        "collab_close_end",
        "collab_resume_end",
        "dynamic_tool_call_request",
        "dynamic_tool_call_response",
        "thread_settings_applied",
        "thread_goal_updated",
        "sub_agent_activity",
        "plan_update",
        "turn_diff",
        "background_event",
        "stream_error",
        "session_configured",
    }
)

# The replayed parent history at the top of a fork is written in one burst, within
# milliseconds; the fork's own first line follows seconds later.
REPLAY_BURST_GAP: Final = timedelta(seconds=1)

_TITLE_LENGTH: Final = 100

# Within one model response items come in this order; going back starts the next response.
_REASONING, _TEXT, _CALLS = 1, 2, 3

_EVENT, _ITEM = "event", "item"


# --- the adapter -----------------------------------------------------------------------------


class CodexAdapter:
    """Reads OpenAI Codex CLI rollouts: modern, bare early-Rust and TypeScript-era files.

    .. versionadded:: 0.1
    """

    name = "codex"
    display_name = "Codex CLI"
    parser_version = "1"
    scan_reads_content: Final = ("*rollout-*.jsonl", "*sessions/*.jsonl", f"*{SESSION_INDEX}")
    """``scan`` reads the first line of each JSON Lines rollout (for the thread id) and the
    session index (for titles); the TypeScript ``.json`` documents are listed by name only."""

    def detect(self, host: Host) -> SourceInfo | None:
        """Find ``sessions/`` and ``archived_sessions/`` under the Codex home."""
        home = codex_home(host)
        roots = tuple(str(home / name) for name in (SESSIONS, ARCHIVED) if (home / name).is_dir())
        if not roots:
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=roots)

    def explain(self, host: Host) -> Iterator[str]:
        """Where the adapter looks on ``host``, for ``chatparse doctor``."""
        configured = host.getenv("CODEX_HOME")
        home = codex_home(host)
        if configured:
            yield f"CODEX_HOME is set: {configured} (so ~/.codex is not read)"
        else:
            yield "CODEX_HOME is not set: using ~/.codex"
        yield f"Codex home {home}: {'exists' if home.is_dir() else 'missing'}"
        for name in (SESSIONS, ARCHIVED):
            folder = home / name
            if folder.is_dir():
                yield f"{folder}: {len(_rollout_files(folder))} rollout file(s)"
            else:
                yield f"{folder}: missing"
        index = home / SESSION_INDEX
        yield f"{index}: {'titles read from it' if index.is_file() else 'missing (no titles)'}"
        if home.is_dir() and any(home.rglob("*.jsonl.zst")):
            yield "compressed *.jsonl.zst rollouts were found; chatparse cannot read them yet"

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """List every thread once; an active copy wins over an archived one with the same id."""
        titles: dict[Path, dict[str, str]] = {}
        chosen: dict[str, tuple[tuple[int, int, float, str], ConversationMeta]] = {}
        for root in map(Path, source.roots):
            home = root.parent
            if home not in titles:
                titles[home] = read_session_index(home / SESSION_INDEX)
            archived = root.name == ARCHIVED
            for path in _rollout_files(root):
                meta = self._meta(path, titles[home])
                if meta is None:
                    continue
                mtime = meta.mtime.timestamp() if meta.mtime is not None else 0.0
                rank = (int(archived), int(path.suffix == ".json"), -mtime, str(path))
                if meta.id not in chosen or rank < chosen[meta.id][0]:
                    chosen[meta.id] = (rank, meta)
        for thread_id in sorted(chosen):
            yield chosen[thread_id][1]

    def sniff(self, path: Path) -> float:
        """How sure we are that ``path`` is a Codex rollout, from its name and first line."""
        if not path.is_file():
            return 0.0
        named = path.name.startswith("rollout-")
        if path.suffix == ".json":
            return 0.6 if named else 0.0
        if path.suffix != ".jsonl":
            return 0.0
        first = jsonl.read_first_line(path)
        value = first.value if isinstance(first, jsonl.Line) else None
        if isinstance(value, dict) and value.get("type") == "session_meta":
            return 0.95
        if isinstance(value, dict) and _is_bare_meta(value):
            return 0.7 if named else 0.4
        return 0.5 if named else 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The one thread in a rollout file (titled from a session index beside it, if any)."""
        home = next((p for p in path.parents if (p / SESSION_INDEX).is_file()), None)
        titles = read_session_index(home / SESSION_INDEX) if home is not None else {}
        meta = self._meta(path, titles)
        if meta is not None:
            yield meta

    def _meta(self, path: Path, titles: Mapping[str, str]) -> ConversationMeta | None:
        try:
            info = path.stat()
        except OSError:
            return None  # gone between listing and stat: a rollout being archived
        header = _Header() if path.suffix == ".json" else _read_header(path)
        thread_id = header.id or _id_from_name(path)
        return _build.conversation_meta(
            source=self.name,
            id=thread_id,
            path=str(path),
            fingerprint=f"{info.st_size}:{info.st_mtime_ns}",
            size=info.st_size,
            mtime=datetime.fromtimestamp(info.st_mtime, UTC),
            title=titles.get(thread_id),
            project_path=header.cwd,
            created_at=header.created_at,
            locator=header.locator,
        )

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one rollout, whichever of the three shapes it has."""
        path = Path(meta.path)
        try:
            present = path.is_file()
        except OSError as exc:  # Python 3.11 raises for a folder on the way that cannot be searched
            raise SourceUnavailableError(
                meta.path, f"cannot read: {exc.strerror or exc}", "Check its permissions."
            ) from exc
        if not present:
            raise SourceUnavailableError(
                meta.path, "no such file", "Scan again: the rollout was moved or deleted."
            )
        thread = _Thread()
        if path.suffix == ".json":
            _read_document(path, thread)
        else:
            _read_lines(path, thread)
        return thread.conversation(meta, self)


def codex_home(host: Host) -> Path:
    """``$CODEX_HOME`` (with ``~`` expanded against the host), else ``~/.codex``."""
    configured = host.getenv("CODEX_HOME")
    return host.expand(configured) if configured else host.home / ".codex"


def read_session_index(path: Path) -> dict[str, str]:
    """Thread names from ``session_index.jsonl``: the last line for an id wins.

    Read afresh on every call, so a rename made since the last scan shows up.
    """
    names: dict[str, str] = {}
    if not path.is_file():
        return names
    for record in jsonl.iter_lines(path):
        value = record.value if isinstance(record, jsonl.Line) else None
        if isinstance(value, dict):
            thread_id, name = value.get("id"), value.get("thread_name")
            if isinstance(thread_id, str) and isinstance(name, str) and name.strip():
                names[thread_id] = name.strip()
    return names


def _rollout_files(root: Path) -> list[Path]:
    return walk_files(root, _is_rollout_name)


def _is_rollout_name(name: str) -> bool:
    return name.endswith(".jsonl") or (name.startswith("rollout-") and name.endswith(".json"))


def _id_from_name(path: Path) -> str:
    found = _UUID.findall(path.stem)
    return found[-1].lower() if found else path.stem


def _is_bare_meta(value: Mapping[str, Any]) -> bool:
    return "payload" not in value and "type" not in value and isinstance(value.get("id"), str)


@frozen
class _Header:
    """What the first line of a rollout says about its thread."""

    id: str | None = None
    cwd: str | None = None
    created_at: datetime | None = None
    locator: Mapping[str, str] = Factory(dict)


def _read_header(path: Path) -> _Header:
    try:
        first = jsonl.read_first_line(path)
    except SourceUnavailableError:
        return _Header()
    value = first.value if isinstance(first, jsonl.Line) else None
    if not isinstance(value, dict):
        return _Header()
    if value.get("type") == "session_meta" and isinstance(value.get("payload"), dict):
        meta = value["payload"]
        created = _timestamp(meta.get("timestamp")) or _timestamp(value.get("timestamp"))
    elif _is_bare_meta(value):
        meta, created = value, _timestamp(value.get("timestamp"))
    else:
        return _Header()
    return _Header(
        id=as_text(meta.get("id")),
        cwd=as_text(meta.get("cwd")),
        created_at=created,
        locator=thread_origin(meta),
    )


def thread_origin(meta: Mapping[str, Any]) -> dict[str, str]:
    """Where a thread came from, kept in ``ConversationMeta.locator``.

    ``originator`` (``codex_cli_rs``, ``codex-tui``, ``codex_exec``, ``Codex Desktop``, ...),
    ``source`` (``cli``, ``vscode``, ``exec``, ``mcp``, or ``subagent:<kind>``), and for forks
    and sub-agents ``forked_from_id`` and ``parent_thread_id``.
    """
    origin: dict[str, str] = {}
    for key in ("originator", "model_provider", "forked_from_id", "parent_thread_id"):
        if isinstance(meta.get(key), str):
            origin[key] = meta[key]
    source = meta.get("source")
    if isinstance(source, str):
        origin["source"] = source
    elif isinstance(source, dict) and isinstance(source.get("subagent"), (dict, str)):
        kind = source["subagent"]
        origin["source"] = f"subagent:{kind if isinstance(kind, str) else next(iter(kind), '')}"
    parent = _parent_of(meta)
    if parent is not None:
        origin.setdefault("parent_thread_id", parent)
    return origin


def _parent_of(meta: Mapping[str, Any]) -> str | None:
    """The thread a fork or sub-agent was started from, when the meta names one."""
    for key in ("forked_from_id", "parent_thread_id"):
        if isinstance(meta.get(key), str):
            return str(meta[key])
    spawn = dig(meta, "source", "subagent", "thread_spawn")
    if isinstance(spawn, dict) and isinstance(spawn.get("parent_thread_id"), str):
        return str(spawn["parent_thread_id"])
    return None


# --- reading the containers --------------------------------------------------------------------


def _read_lines(path: Path, thread: _Thread) -> None:
    """Feed a JSON Lines rollout (modern or bare) to ``thread``, one line at a time."""
    unknown_spans: list[tuple[int, int]] = []
    first = True
    feed = thread.feed
    for record in jsonl.iter_lines(path):
        if isinstance(record, jsonl.Malformed):
            thread.malformed()
            continue
        value = record.value
        if first and isinstance(value, dict) and _is_bare_meta(value):
            thread.feed_bare_meta(value)
        elif not feed(value, record.line_no):
            # Where an unknown record was is only spelled out for the few that need it.
            thread.unknown_at(f"line {record.line_no}", value)
            unknown_spans.append((record.offset, record.end_offset))
        first = False
    if unknown_spans:
        thread.fill_raw(jsonl.read_spans(path, unknown_spans))


def _read_document(path: Path, thread: _Thread) -> None:
    """Feed a TypeScript CLI ``.json`` rollout to ``thread``: the session, then each item."""
    fields = bigjson.iter_kvitems(path, "session")
    with closing(fields):
        session: dict[str, Any] = {}
        for field in fields:
            if isinstance(field, bigjson.Malformed):
                break
            session[str(field.key)] = field.value
            if {"id", "timestamp"} <= session.keys():
                break
    thread.id_prefix = "I"
    if session:
        thread.feed_bare_meta(session)
    for item in bigjson.iter_items(path, "items.item"):
        if isinstance(item, bigjson.Malformed):
            thread.malformed()
            continue
        if not thread.feed(item.value, int(item.key)):
            thread.unknown_at(f"items[{item.key}]", item.value)
            thread.fill_raw([jsonvalue.encode(item.value)])


# --- small readers of JSON values ----------------------------------------------------------------


def _timestamp(value: object) -> datetime | None:
    """An RFC 3339 string or Unix seconds as an aware UTC datetime; ``None`` for anything else."""
    if isinstance(value, str):
        return as_datetime(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    return None


def _content_texts(content: object) -> list[str]:
    """The texts of a content array (``input_text``, ``output_text``, ``text`` parts)."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        part["text"]
        for part in content
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    ]


def _images(urls: Iterable[object]) -> tuple[ImageRef, ...]:
    """An :class:`ImageRef` per image URL or path; base64 data is measured, never kept."""
    refs = []
    for url in urls:
        payloads = strip_data_uri_images(url, "")[1] if isinstance(url, str) else ()
        if payloads:
            refs += [_build.image(media_type=p.media_type, byte_size=p.byte_size) for p in payloads]
        else:
            refs.append(_build.image())
    return tuple(refs)


def _content_images(content: object) -> tuple[ImageRef, ...]:
    if not isinstance(content, list):
        return ()
    return _images(
        part.get("image_url")
        for part in content
        if isinstance(part, dict) and part.get("type") == "input_image"
    )


def _visible(text: str) -> str:
    """Text as shown: inline base64 images replaced by a short placeholder, ends trimmed."""
    return strip_data_uri_images(text)[0].strip()


def is_injected(text: str) -> bool:
    """Whether user-role text is harness context (environment, AGENTS.md), not a typed prompt."""
    return text.lstrip().startswith(INJECTED_PREFIXES)


def typed_request(text: str) -> str:
    """What the person typed: the IDE extension's context before its marker is dropped."""
    if IDE_REQUEST_MARKER in text:
        text = text.split(IDE_REQUEST_MARKER, 1)[1]
    return _visible(text)


def tool_output(output: object) -> tuple[str | None, bool | None]:
    """A tool's output as text, and whether it failed when the output says so.

    ``output`` is a string; an array of ``input_text`` / ``input_image`` items (or one such
    item); or, from shell tools, a string holding JSON ``{"output", "metadata": {"exit_code"}}``,
    whose non-zero exit code marks an error.
    """
    if isinstance(output, str):
        stripped = output.strip()
        # ``rfind``: the metadata follows the output, which may be long: found from the end at once.
        if stripped.startswith("{") and stripped.rfind('"metadata"') >= 0:
            result = jsonvalue.decode(stripped)
            if isinstance(result, dict) and isinstance(result.get("output"), str):
                exit_code = dig(result, "metadata", "exit_code")
                failed = None if not isinstance(exit_code, int) else exit_code != 0
                return _visible(result["output"]), failed
        return _visible(output), None
    if isinstance(output, dict):
        output = [output]
    if isinstance(output, list):
        parts = []
        for part in output:
            if not isinstance(part, dict):
                continue
            if isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif part.get("type") == "input_image":
                image = _images([part.get("image_url")])[0]
                parts.append(f"[image: {image.media_type or 'unknown'}, {image.byte_size} bytes]")
        return _visible("\n".join(parts)), None
    return None, None


# --- token usage -------------------------------------------------------------------------------

# A usage object's counts, in this order: input (cached included), cached input, output
# (reasoning included), reasoning output, cache writes, total.
_Counts = tuple[int | None, ...]
_NO_COUNTS: Final = (None,) * 6


_COUNT_FIELDS: Final = (
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "reasoning_output_tokens",
    "cache_write_input_tokens",
    "total_tokens",
)


def _counts(usage: object) -> _Counts | None:
    if not isinstance(usage, dict):
        return None
    counts = tuple(map(as_count, map(usage.get, _COUNT_FIELDS)))
    return None if counts == _NO_COUNTS else counts


@define
class _TokenLedger:
    """Turns ``token_count`` events into per-response usage.

    ``total_token_usage`` is cumulative, so a response's usage is the growth of the total since
    the previous event; an event whose total has not grown repeats the previous one and is
    ignored. A total that shrinks started again from zero (a fork's own counter after its
    replayed history), so it is taken whole. Without a total, ``last_token_usage`` (or, in the
    earliest files, usage fields at the top of the payload) is the response's own usage, and an
    exact repeat of the previous one is ignored. Cached input and reasoning output are parts of
    input and output, kept as such, never added to them.
    """

    total: _Counts | None = None
    last: _Counts | None = None

    def usage(self, payload: Mapping[str, Any]) -> tuple[_Counts | None, str]:
        """The response's counts (with the cumulative total last), or ``None`` and why not."""
        info = payload.get("info", payload)
        if info is None:
            return None, "event_msg/token_count: rate limits only"
        fields = info if isinstance(info, dict) else {}
        total = _counts(fields.get("total_token_usage"))
        if total is not None:
            return self._growth(total)
        last = _counts(fields.get("last_token_usage")) or _counts(payload)
        if last is not None:
            previous, self.last = self.last, last
            if last == previous:
                return None, "event_msg/token_count: usage unchanged (re-emitted)"
            return (*last[:-1], None), ""
        return None, "event_msg/token_count: no usage"

    def _growth(self, total: _Counts) -> tuple[_Counts | None, str]:
        previous, self.total = self.total, total
        if total == previous:
            return None, "event_msg/token_count: total unchanged (re-emitted)"
        if previous is None:
            return total, ""
        grown: list[int | None] = []
        for n, p in zip(total, previous, strict=True):
            if n is not None and p is not None and n < p:
                return total, ""  # a count shrank: the total started again from zero
            grown.append(None if n is None else n - (p or 0))
        grown[-1] = total[-1]
        return tuple(grown), ""


# --- one thread, record by record ------------------------------------------------------------


class _Unknown:
    """The outcome of a record of a shape we do not know."""


UNKNOWN: Final = _Unknown()

_Outcome: TypeAlias = "_Draft | str | _Unknown | None"
"""What reading a record came to: the draft it went into, ``None`` (used otherwise: metadata,
a paired tool output), a skip reason (known noise), or :data:`UNKNOWN`."""


@define(eq=False)
class _Copies:
    """One piece of content written in up to two shapes; the event copy's text wins.

    Only the winning text is kept: the other copy would be held, unused, until the end.
    """

    text: str = ""
    from_event: bool = False
    owner: _Draft | None = None
    """The response the copies belong to, set on those that wait for their partner."""

    def put(self, shape: str, text: str) -> None:
        if shape == _EVENT:
            self.text, self.from_event = text, True
        elif not self.from_event:
            self.text = text


def _owner(copies: _Copies) -> _Draft:
    if copies.owner is None:
        raise AssertionError("a waiting copy always belongs to a response of its turn")
    return copies.owner


@define
class _Waiting:
    """Copies of one kind of content still waiting for their other shape, oldest first."""

    event: deque[_Copies] = Factory(deque)
    item: deque[_Copies] = Factory(deque)

    def partner(self, shape: str) -> _Copies | None:
        other = self.item if shape == _EVENT else self.event
        return other.popleft() if other else None

    def wait(self, shape: str, copies: _Copies) -> None:
        (self.event if shape == _EVENT else self.item).append(copies)


@define(eq=False)
class _Call:
    id: str | None
    name: str
    input: Any
    output: str | None = None
    is_error: bool | None = None


@define(eq=False)
class _Draft:
    """A message being put together from one or more records."""

    line: int
    """The line number (or item index) of the record that opened it: the message's id."""
    role: Role
    timestamp: datetime | None
    kind: MessageKind = "message"
    text: _Copies | None = None
    thinking: list[_Copies] = Factory(list)
    calls: list[_Call] = Factory(list)
    event_images: tuple[ImageRef, ...] = ()
    item_images: tuple[ImageRef, ...] = ()
    model: str | None = None
    usage: Usage | None = None
    stage: int = 0
    closed: bool = False
    sidechain: bool = False
    records: int = 0

    def message(self, id_prefix: str) -> Message | None:
        """The finished message; ``None`` when it has nothing to show (no text, no call, ...)."""
        text = _visible(self.text.text) if self.text is not None else ""
        thinking = "\n\n".join(filter(None, [c.text.strip() for c in self.thinking]))
        if not (
            text
            or thinking
            or self.calls
            or self.usage is not None
            or self.event_images
            or self.item_images
            or self.kind != "message"
        ):
            return None
        return _build.message(
            id=f"{id_prefix}{self.line}",
            role=self.role,
            text=text,
            thinking=thinking or None,
            tool_calls=[
                _build.tool_call(
                    id=c.id, name=c.name, input=c.input, output=c.output, is_error=c.is_error
                )
                for c in self.calls
            ],
            images=self.item_images or self.event_images,
            timestamp=self.timestamp,
            model=self.model,
            usage=self.usage,
            is_sidechain=self.sidechain,
            kind=self.kind,
        )


@define
class _Turn:
    """One user turn: the prompt and every model response up to the next prompt."""

    user: _Waiting = Factory(_Waiting)
    texts: _Waiting = Factory(_Waiting)
    thinking: _Waiting = Factory(_Waiting)
    responses: list[_Draft] = Factory(list)
    current: _Draft | None = None
    start: int = 0
    """Where the turn starts in the thread's list of drafts."""


@define
class _Replay:
    """The parent's history a fork or sub-agent rollout replays after its own session_meta."""

    owner: str
    last: datetime


class _Thread:
    """The state of one rollout being read; ``feed`` it records in file order."""

    def __init__(self) -> None:
        self.drafts: list[_Draft] = []
        self.id_prefix = "L"
        """Message ids are ``L<line number>``, or ``I<item index>`` in a TypeScript document."""
        self.calls: dict[str, _Call] = {}
        self.turn = _Turn()
        self.turn_starts: list[int] = []
        self.model: str | None = None
        self.ledger = _TokenLedger()
        self.replay: _Replay | None = None
        self.meta_seen = False
        self.id: str | None = None
        self.cwd: str | None = None
        self.branch: str | None = None
        self.version: str | None = None
        self.created_at: datetime | None = None
        self.updated_at: datetime | None = None
        self.thread_name: str | None = None
        self.stamp: object = None
        """The current record's raw timestamp, parsed only when something needs it."""
        self.last_stamp: object = None
        self.parsed: tuple[object, datetime | None] = (None, None)
        # The account of every record.
        self.seen = 0
        self.used = 0
        self.malformed_count = 0
        self.skipped: Counter[str] = Counter()
        self.unknown: list[tuple[str, str | None]] = []
        self.raw: list[str] = []

    @property
    def now(self) -> datetime | None:
        """The current record's time; consecutive records often share one, parsed once."""
        raw, parsed = self.parsed
        if raw is not self.stamp and raw != self.stamp:
            parsed = _timestamp(self.stamp)
            self.parsed = (self.stamp, parsed)
            if parsed is not None and (self.updated_at is None or parsed > self.updated_at):
                self.updated_at = parsed
        return parsed

    def _latest(self) -> datetime | None:
        """The latest time in the file, the last record's included."""
        self.stamp = self.last_stamp
        return max(filter(None, (self.now, self.updated_at)), default=None)

    # -- accounting --

    def malformed(self) -> None:
        self.seen += 1
        self.malformed_count += 1

    def _tally(self, outcome: _Outcome) -> bool:
        if isinstance(outcome, _Draft):
            outcome.records += 1
            self.used += 1
        elif outcome is None:
            self.used += 1
        elif isinstance(outcome, str):
            self.skipped[outcome] += 1
        else:
            return False
        return True

    def fill_raw(self, texts: Iterable[str]) -> None:
        """The raw text of the unknown records, in the order they were fed."""
        self.raw.extend(texts)

    # -- dispatch --

    def feed(self, value: object, line: int) -> bool:
        """Account for one record; ``False`` when it is unknown.

        The caller then says where it was (:meth:`unknown_at`) and later gives its raw text.
        """
        self.seen += 1
        if not isinstance(value, dict):
            return False
        kind = value.get("type")
        if "payload" in value and isinstance(kind, str):
            stamp = self.stamp = value.get("timestamp")
            if stamp is not None:
                self.last_stamp = stamp
            if self.replay is not None:
                self._follow_replay()
            payload = value["payload"]
            read = _RECORDS.get(kind, _unknown) if isinstance(payload, dict) else _unknown
            outcome = read(self, payload, line)
        elif value.get("record_type") == "state":
            outcome = "record_type: state"
        else:  # a bare response item: the early-Rust and TypeScript formats
            self.stamp = None
            outcome = self.item(value, line) if isinstance(kind, str) else UNKNOWN
        return self._tally(outcome)

    def unknown_at(self, where: str, value: object) -> None:
        """Where the record :meth:`feed` just found unknown was, and its type if it has one."""
        self.unknown.append((where, _label(value)))

    def turn_context(self, context: dict[str, Any], _line: int) -> _Outcome:
        """Settings of the turn: the model answering from here on, and the working folder."""
        self.model = as_text(context.get("model")) or self.model
        self.cwd = self.cwd or as_text(context.get("cwd"))
        return None

    # -- session_meta: who this thread is --

    def feed_bare_meta(self, meta: Mapping[str, Any]) -> None:
        """The bare first line of an early-Rust rollout, or a TypeScript rollout's session."""
        self.seen += 1
        self.stamp = None
        self._tally(self.session_meta(meta, 0))

    def session_meta(self, meta: Mapping[str, Any], _line: int) -> _Outcome:
        if self.meta_seen:
            # A fork's copy of its parent's meta, or a later thread's: not this thread's.
            if self.replay is not None and isinstance(meta.get("id"), str):
                self.replay.owner = meta["id"]
            return "session_meta: not this thread's (replayed parent or later thread)"
        self.meta_seen = True
        self.id = as_text(meta.get("id"))
        self.cwd = as_text(meta.get("cwd")) or self.cwd
        self.branch = as_text(dig(meta, "git", "branch"))
        self.version = as_text(meta.get("cli_version"))
        self.created_at = _timestamp(meta.get("timestamp")) or self.now
        parent = _parent_of(meta)
        start = self.now or self.created_at
        if parent is not None and start is not None:
            self.replay = _Replay(owner=parent, last=start)
        return None

    def _follow_replay(self) -> None:
        """End the replayed burst at the first line written well after the one before it."""
        replay = self.replay
        if replay is None:
            return
        if self.now is None or not (replay.last <= self.now <= replay.last + REPLAY_BURST_GAP):
            self.replay = None
            self._new_turn()
        else:
            replay.last = self.now

    # -- response_item: what the model saw --

    def item(self, item: dict[str, Any], line: int) -> _Outcome:
        kind = item.get("type")
        # ``isinstance`` first: a list or object as the type is unhashable and crashed the lookup.
        read = _ITEMS.get(kind, _unknown) if isinstance(kind, str) else _unknown
        return read(self, item, line)

    def server_compaction(self, _item: dict[str, Any], line: int) -> _Outcome:
        """Compaction done by the server: where it happened is known, its summary is encrypted."""
        return self.compacted({"message": ""}, line)

    def agent_to_agent(self, item: dict[str, Any], line: int) -> _Outcome:
        """A message from another agent of a multi-agent thread, shown as a notice."""
        return self._notice("\n".join(_content_texts(item.get("content"))), line)

    def item_message(self, item: dict[str, Any], line: int) -> _Outcome:
        role = item.get("role")
        content = item.get("content")
        if role == "assistant":
            return self._answer(_ITEM, "\n".join(_content_texts(content)), line)
        if role in ("developer", "system"):
            return f"response_item/message: {role} instructions"
        if role != "user":
            return UNKNOWN
        texts = _content_texts(content)
        typed = [t for t in texts if not is_injected(t)]
        if texts and not typed:
            self._note_context(texts)
            return "response_item/message: injected context"
        return self._prompt(_ITEM, "\n".join(typed), _content_images(content), line)

    def _note_context(self, texts: Iterable[str]) -> None:
        if self.cwd is None:
            for text in texts:
                found = _CWD_IN_CONTEXT.search(text)
                if found:
                    self.cwd = found[1].strip()
                    return

    def reasoning(self, item: dict[str, Any], line: int) -> _Outcome:
        summary = _content_texts(item.get("summary"))
        if summary:
            return self._thoughts(_ITEM, summary, line)
        content = [t for t in _content_texts(item.get("content")) if t.strip()]
        draft = self._response(_REASONING, line)
        if content:  # raw reasoning text, which has no event copy to wait for
            draft.thinking.append(_Copies(text="\n\n".join(content)))
            return draft
        return "response_item/reasoning: no readable text"

    def tool_call(self, item: dict[str, Any], line: int) -> _Outcome:
        kind = item["type"]
        call_id = as_text(item.get("call_id"))
        if kind == "function_call":
            name, arguments = item.get("name"), item.get("arguments")
            if isinstance(arguments, str):
                decoded = jsonvalue.decode(arguments)
                arguments = arguments if isinstance(decoded, jsonvalue.Invalid) else decoded
        elif kind == "custom_tool_call":
            name, arguments = item.get("name"), item.get("input")
        elif kind == "tool_search_call":
            name, arguments = "tool_search", item.get("arguments")
        elif kind == "local_shell_call":
            name, arguments = "local_shell", item.get("action")
        elif kind == "web_search_call":
            name, arguments = "web_search", item.get("action")
            call_id = call_id or as_text(item.get("id"))
        else:  # image_generation_call: the prompt, never the image it returned
            name, arguments = "image_generation", {"revised_prompt": item.get("revised_prompt")}
            call_id = call_id or as_text(item.get("id"))
        if not isinstance(name, str):
            return UNKNOWN
        draft = self._response(_CALLS, line)
        call = _Call(id=call_id, name=name, input=arguments)
        draft.calls.append(call)
        if call_id is not None:
            self.calls.setdefault(call_id, call)
        return draft

    def tool_output(self, item: dict[str, Any], line: int) -> _Outcome:
        call_id = as_text(item.get("call_id"))
        output: str | None
        failed: bool | None
        if item.get("type") == "tool_search_output":
            tools = item.get("tools")
            names = (
                [t.get("name") for t in tools if isinstance(t, dict)]
                if isinstance(tools, list)
                else []
            )
            output, failed = ", ".join(n for n in names if isinstance(n, str)), None
        else:
            output, failed = tool_output(item.get("output"))
        call = self.calls.get(call_id) if call_id is not None else None
        if call is not None and call.output is None:
            call.output, call.is_error = output, failed
            return None
        if call is not None:
            return "response_item: tool output repeated"
        orphan = self._add(line, "user", "tool_result")
        orphan.text = _Copies(text=output or "")
        return orphan

    # -- event_msg: what the person saw --

    def event(self, event: dict[str, Any], line: int) -> _Outcome:
        kind = event.get("type")
        # ``isinstance`` first: a list or object as the type is unhashable and crashed the lookup.
        read = _EVENTS.get(kind, _unknown) if isinstance(kind, str) else _unknown
        return read(self, event, line)

    def agent_message(self, event: dict[str, Any], line: int) -> _Outcome:
        message = event.get("message")
        return self._answer(_EVENT, message, line) if isinstance(message, str) else UNKNOWN

    def agent_reasoning(self, event: dict[str, Any], line: int) -> _Outcome:
        text = event.get("text")
        return self._thoughts(_EVENT, [text], line) if isinstance(text, str) else UNKNOWN

    def turn_aborted(self, event: dict[str, Any], line: int) -> _Outcome:
        """The person stopped the turn (or it was replaced): a notice where it happened."""
        self._end_response()
        return self._notice(f"Turn aborted ({event.get('reason') or 'no reason given'})", line)

    def error(self, event: dict[str, Any], line: int) -> _Outcome:
        message = event.get("message")
        return self._notice(message, line) if isinstance(message, str) else UNKNOWN

    def thread_renamed(self, event: dict[str, Any], _line: int) -> _Outcome:
        self.thread_name = as_text(event.get("thread_name")) or self.thread_name
        return None

    def user_event(self, event: dict[str, Any], line: int) -> _Outcome:
        message = event.get("message")
        if not isinstance(message, str):
            return UNKNOWN
        if event.get("kind") in _INJECTED_EVENT_KINDS or is_injected(message):
            self._note_context([message])
            return "event_msg/user_message: injected context"
        # Lists of URLs or paths; any other value (a damaged line) holds no image.
        listed = [event.get("images"), event.get("local_images")]
        images = [url for urls in listed if isinstance(urls, list) for url in urls]
        return self._prompt(_EVENT, message, _images(images), line)

    # -- building messages --

    def _add(self, line: int, role: Role, kind: MessageKind = "message") -> _Draft:
        """A new message, opened by the current record."""
        draft = _Draft(line, role, self.now, kind, sidechain=self.replay is not None)
        self.drafts.append(draft)
        return draft

    def _new_turn(self) -> None:
        self.turn = _Turn(start=len(self.drafts))

    def _prompt(self, shape: str, text: str, images: tuple[ImageRef, ...], line: int) -> _Draft:
        """A typed prompt: the partner of the other copy of it, or the start of a new turn."""
        copies = self.turn.user.partner(shape) if not self.turn.responses else None
        if copies is None:
            self._new_turn()
            self.turn_starts.append(len(self.drafts))
            draft = self._add(line, "user")
            copies = draft.text = _Copies()
            self.turn.user.wait(shape, copies)
        draft = self.drafts[self.turn.start]
        copies.put(shape, typed_request(text))
        if shape == _EVENT:
            draft.event_images = images
        else:
            draft.item_images = images
        return draft

    def _response(self, stage: int, line: int) -> _Draft:
        """The model response an item of ``stage`` belongs to: the current one, or a new one."""
        draft = self.turn.current
        if draft is None or draft.closed or stage < draft.stage or stage == draft.stage == _TEXT:
            draft = self._add(line, "assistant")
            draft.model = self.model
            self.turn.current = draft
            self.turn.responses.append(draft)
        draft.stage = max(draft.stage, stage)
        return draft

    def _answer(self, shape: str, text: str, line: int) -> _Draft:
        copies = self.turn.texts.partner(shape)
        if copies is not None:
            copies.put(shape, text)
            return _owner(copies)
        draft = self._response(_TEXT, line)
        draft.text = _Copies(owner=draft)
        draft.text.put(shape, text)
        self.turn.texts.wait(shape, draft.text)
        return draft

    def _thoughts(self, shape: str, texts: list[str], line: int) -> _Draft:
        draft: _Draft | None = None
        for text in texts:
            copies = self.turn.thinking.partner(shape)
            if copies is not None:
                copies.put(shape, text)
                draft = _owner(copies)
                continue
            draft = self._response(_REASONING, line)
            copies = _Copies(owner=draft)
            copies.put(shape, text)
            draft.thinking.append(copies)
            self.turn.thinking.wait(shape, copies)
        return draft or self._response(_REASONING, line)

    def _end_response(self) -> None:
        if self.turn.current is not None:
            self.turn.current.closed = True
        self.turn.current = None

    def token_count(self, event: dict[str, Any], line: int) -> _Outcome:
        counts, reason = self.ledger.usage(event)
        if counts is None:
            return reason
        owner = self.replay.owner if self.replay is not None else (self.id or "")
        total = counts[-1]
        usage = _build.usage(
            input_tokens=counts[0],
            cache_read_tokens=counts[1],
            output_tokens=counts[2],
            reasoning_tokens=counts[3],
            cache_write_tokens=counts[4],
            dedup_key=f"codex:{owner}:{total}" if total is not None else None,
            counted=self.replay is None,
        )
        draft = self.turn.current
        if draft is None or draft.usage is not None:
            waiting = next((d for d in reversed(self.turn.responses) if d.usage is None), None)
            draft = waiting or self._response(_CALLS, line)
        draft.usage = usage
        draft.model = draft.model or as_text(dig(event, "info", "model"))
        self._end_response()
        return draft

    def _notice(self, text: str, line: int) -> _Draft:
        draft = self._add(line, "system", "notice")
        draft.text = _Copies(text=text)
        return draft

    def compacted(self, payload: dict[str, Any], line: int) -> _Draft:
        """A compaction summary, as a message of its own.

        Its ``replacement_history`` (the history the thread continues from) repeats lines
        already read earlier in the same file, so it is not read again.
        """
        self._end_response()
        self._new_turn()
        draft = self._add(line, "system", "compaction_summary")
        draft.text = _Copies(text=as_text(payload.get("message")) or "")
        return draft

    def rolled_back(self, event: dict[str, Any], line: int) -> _Outcome:
        """The last ``num_turns`` turns were undone: they stay, marked as a side chain."""
        turns = as_count(event.get("num_turns")) or 0
        self._end_response()
        if turns and self.turn_starts:
            first = self.turn_starts[-min(turns, len(self.turn_starts))]
            for draft in self.drafts[first:]:
                draft.sidechain = True
        self._new_turn()
        return self._notice(f"Rolled back {turns} turn(s)", line)

    # -- the result --

    def conversation(self, meta: ConversationMeta, adapter: CodexAdapter) -> ParsedConversation:
        messages = []
        for draft in self.drafts:
            message = draft.message(self.id_prefix)
            if message is None:
                self.used -= draft.records
                self.skipped["empty message"] += draft.records
            else:
                messages.append(message)
        unknown = [
            UnknownRecord(where=where, type=kind, raw=raw, producer_version=self.version)
            for (where, kind), raw in zip(self.unknown, self.raw, strict=True)
        ]
        first_prompt = next(
            (
                m.text
                for m in messages
                if m.role == "user" and m.kind == "message" and not m.is_sidechain and m.text
            ),
            None,
        )
        return ParsedConversation(
            source=adapter.name,
            id=meta.id,
            meta=meta,
            parser_version=adapter.parser_version,
            title=meta.title or self.thread_name or _title(first_prompt),
            project_path=self.cwd or meta.project_path,
            git_branch=self.branch,
            created_at=self.created_at or meta.created_at,
            updated_at=self._latest(),
            producer_version=self.version,
            messages=messages,
            diagnostics=Diagnostics(
                records_seen=self.seen,
                records_used=self.used,
                malformed=self.malformed_count,
                skipped=dict(sorted(self.skipped.items())),
                unknown=unknown,
            ),
        )


_Reader: TypeAlias = Callable[[_Thread, dict[str, Any], int], _Outcome]


def _skip(reason: str) -> _Reader:
    """The reader of a kind of known noise: the record is counted as skipped for ``reason``."""
    return lambda _thread, _record, _line: reason


def _unknown(_thread: _Thread, _record: dict[str, Any], _line: int) -> _Outcome:
    """The reader of every kind not listed: the record is kept raw."""
    return UNKNOWN


# How each kind of record is read, or why it is skipped; kinds not listed are kept unknown. One
# lookup per record: the skip reasons are made once here, not for every record.
_RECORDS: Final[dict[str, _Reader]] = {
    "session_meta": _Thread.session_meta,
    "response_item": _Thread.item,
    "event_msg": _Thread.event,
    "turn_context": _Thread.turn_context,
    "compacted": _Thread.compacted,
    **{kind: _skip(kind) for kind in SKIPPED_RECORDS},
}
_ITEMS: Final[dict[str, _Reader]] = {
    "message": _Thread.item_message,
    "reasoning": _Thread.reasoning,
    "function_call": _Thread.tool_call,
    "custom_tool_call": _Thread.tool_call,
    "local_shell_call": _Thread.tool_call,
    "web_search_call": _Thread.tool_call,
    "tool_search_call": _Thread.tool_call,
    "image_generation_call": _Thread.tool_call,
    "function_call_output": _Thread.tool_output,
    "custom_tool_call_output": _Thread.tool_output,
    "tool_search_output": _Thread.tool_output,
    "compaction": _Thread.server_compaction,
    "compaction_summary": _Thread.server_compaction,
    "agent_message": _Thread.agent_to_agent,
    **{kind: _skip(f"response_item/{kind}") for kind in SKIPPED_ITEMS},
}
_EVENTS: Final[dict[str, _Reader]] = {
    "user_message": _Thread.user_event,
    "agent_message": _Thread.agent_message,
    "agent_reasoning": _Thread.agent_reasoning,
    "token_count": _Thread.token_count,
    "turn_aborted": _Thread.turn_aborted,
    "thread_rolled_back": _Thread.rolled_back,
    "error": _Thread.error,
    "thread_name_updated": _Thread.thread_renamed,
    **{kind: _skip(f"event_msg/{kind}") for kind in SKIPPED_EVENTS},
}


def _label(record: object) -> str | None:
    """An unknown record's type: ``<type>/<payload type>`` when it has both."""
    if not isinstance(record, dict):
        return None
    kind, payload = record.get("type"), record.get("payload")
    subtype = payload.get("type") if isinstance(payload, dict) else None
    if isinstance(kind, str) and isinstance(subtype, str):
        return f"{kind}/{subtype}"
    return kind if isinstance(kind, str) else None


def _title(prompt: str | None) -> str | None:
    """A title from the first request: its first line, cut to a readable length."""
    if not prompt:
        return None
    line = " ".join(prompt.strip().splitlines()[0].split())
    return line if len(line) <= _TITLE_LENGTH else line[: _TITLE_LENGTH - 1].rstrip() + "…"
