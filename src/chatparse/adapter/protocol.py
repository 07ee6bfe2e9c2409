"""What an adapter is: the :class:`SourceAdapter` protocol, and the optional ones it may add.

An adapter is any object with these attributes and methods; it need not inherit from anything.
The registry checks loaded plugins against the protocol at runtime (``isinstance``), and mypy
checks built-ins and plugins that annotate themselves against it statically.

The three steps are separate so that callers pay only for what they use: ``detect`` is cheap
enough to run on every start, ``scan`` lists conversations without reading their content where
the container allows it, and ``parse`` reads one conversation in full.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Final, Protocol, runtime_checkable

from chatparse._names import SOURCE_NAME

if TYPE_CHECKING:
    from chatparse.host import Host
    from chatparse.model import ConversationMeta, Message, ParsedConversation, SourceInfo

__all__ = [
    "ADAPTER_NAME",
    "BatchParser",
    "ContentScanner",
    "Explainer",
    "MessageStreamer",
    "PathSniffer",
    "Peeker",
    "SourceAdapter",
]

ADAPTER_NAME: Final = SOURCE_NAME
"""What an adapter name looks like: lower-case words of letters and digits joined by single
hyphens, such as ``claude-code``."""


@runtime_checkable
class SourceAdapter(Protocol):
    """Reads the conversations of one tool.

    Attributes:
        name: The registry name, matching :data:`ADAPTER_NAME`, such as ``"claude-code"``.
        display_name: What people call the tool, such as ``"Claude Code"``.
        parser_version: Bumped whenever the output for the same input changes, so that callers
            who store parsed conversations know to parse again.

    .. versionadded:: 0.1
    """

    name: str
    display_name: str
    parser_version: str

    def detect(self, host: Host) -> SourceInfo | None:
        """Whether this machine has the source, and where; cheap (stat, no content)."""
        ...

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """List the conversations in a detected source, by stat where the container allows."""
        ...

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one conversation in full.

        Bad content never raises: it is counted in the result's diagnostics. Only a container
        that cannot be read raises :class:`~chatparse.errors.SourceUnavailableError`.
        """
        ...


@runtime_checkable
class PathSniffer(Protocol):
    """Optional: an adapter that can read a file or database it is handed directly.

    :func:`chatparse.parse_path` uses it to parse a path without a home directory around it,
    and to guess which adapter a path belongs to.

    .. versionadded:: 0.1
    """

    def sniff(self, path: Path) -> float:
        """How sure the adapter is that ``path`` is its own, from 0 (not mine) to 1 (certain).

        Reads at most a small head of the file.
        """
        ...

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The conversations held in ``path``, as ``scan`` would list them."""
        ...


@runtime_checkable
class Explainer(Protocol):
    """Optional: an adapter that can say where it looks, for ``chatparse doctor``.

    "Why is my history empty?" is the question users ask most; only the adapter knows which
    directories and environment variables it consults and which stores it cannot read.

    .. versionadded:: 0.1
    """

    def explain(self, host: Host) -> Iterator[str]:
        """One line per fact, for people reading ``chatparse doctor``.

        Each place looked at and whether it exists, each variable honoured and its value, and
        any store found but not readable (encrypted, locked).
        """
        ...


@runtime_checkable
class BatchParser(Protocol):
    """Optional: an adapter that parses many conversations faster together than one at a time.

    Conversations that share a store can then be read through one open connection instead of one
    per conversation: every Cursor composer is in the same global database, and opening it costs
    more than reading one composer's rows. :func:`chatparse.iter_conversations` parses each
    detected source's conversations inside one ``parsing()`` block when its adapter has it.

    .. versionadded:: 0.1
    """

    def parsing(self) -> AbstractContextManager[Callable[[ConversationMeta], ParsedConversation]]:
        """A parse function for many metas, valid inside the ``with`` block.

        Whatever it keeps open (database connections) is closed when the block ends, also when
        it ends early (an exception, or a generator closed before its end). Its results must
        equal ``parse(meta)``'s, and so must the errors it raises. It is for the thread that
        entered the block: what it keeps open need not be shareable between threads (a
        ``sqlite3`` connection is not).
        """
        ...


@runtime_checkable
class ContentScanner(Protocol):
    """Optional: an adapter whose ``scan`` must open some files, not only list and stat them.

    The conformance kit checks that ``scan`` reads no file content unless the adapter declares
    it here: a Codex scan reads each rollout's first line for its id, a Copilot scan reads each
    workspace's ``workspace.json``. Adapters without the attribute read none.

    .. versionadded:: 0.2
    """

    scan_reads_content: bool | Collection[str]
    """``True`` when ``scan`` may open any file; else glob patterns (matched against the file's
    path under the home, as ``*/workspace.json``) of the files it may open."""


@runtime_checkable
class Peeker(Protocol):
    """Optional: an adapter that can fill a meta's title, project and time from a bounded read.

    ``scan`` lists by stat, so a file-based source cannot know what a conversation is called or
    when it last changed. :func:`chatparse.scan` with ``peek=True`` asks adapters that have this
    for it, conversation by conversation; the others' metas are listed as their scan made them.

    .. versionadded:: 0.2
    """

    def peek(self, meta: ConversationMeta) -> ConversationMeta:
        """``meta`` with ``title``, ``project_path`` and ``updated_at`` filled where found.

        Reads at most :data:`~chatparse.adapter.peeking.PEEK_BYTES` from each end of the
        conversation's data, and finds what :meth:`SourceAdapter.parse` would find when that
        covers the whole conversation. A field the read does not find keeps the meta's value;
        a conversation that cannot be read is returned unchanged (``parse`` will say why).
        """
        ...


@runtime_checkable
class MessageStreamer(Protocol):
    """Optional: an adapter that can hand out one conversation's messages as it reads them.

    :func:`chatparse.iter_messages` uses it, so that a session of any size is read in bounded
    memory; for an adapter without it, ``iter_messages`` parses the conversation whole and yields
    its messages.

    .. versionadded:: 0.3
    """

    def iter_messages(self, meta: ConversationMeta) -> Iterator[Message]:
        """The messages ``parse(meta)`` would hold, in its order, each equal to its own.

        Holds only what later records can still change (calls waiting for their results, a
        response whose parts are being merged) and the ids that keep ids unique and parents
        right. Raises what ``parse`` raises, at the latest when the first message is asked for.
        """
        ...
