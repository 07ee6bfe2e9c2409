"""Every exception and warning chatparse raises.

Kept apart from the rest so that any module can import it without an import loop. Each class also
subclasses the builtin a caller would already catch (``LookupError`` for a name that is not there,
``OSError`` for a file we cannot read, ``ValueError`` for bad data), so code written without
chatparse in mind still does the right thing.

Every exception keeps its constructor arguments as attributes and pickles by them, so errors cross
process pools (``concurrent.futures``) intact.

Bad *content* never raises: it is counted in
:class:`~chatparse.model.Diagnostics`. Only a container we cannot read, a lookup that cannot be
answered, or bad serialized data raises.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import ClassVar

__all__ = [
    "AdapterConflictError",
    "AdapterError",
    "AdapterLoadError",
    "AdapterNotFoundError",
    "ChatparseError",
    "ChatparseWarning",
    "MissingExtraError",
    "ModelError",
    "ParseWarning",
    "PriceFileError",
    "RedactorError",
    "RedactorLoadError",
    "RedactorNotFoundError",
    "SkippedSourceWarning",
    "SourceUnavailableError",
    "UnavailableCause",
    "UnsupportedInputError",
    "WorkersCannotStartError",
]


class ChatparseError(Exception):
    """Root of every exception chatparse raises: catch this to catch them all.

    .. versionadded:: 0.1
    """

    _args: tuple[object, ...]

    def _keep(self, *args: object) -> None:
        # Each subclass calls this with exactly its own constructor's arguments, so that
        # ``__reduce__`` can rebuild it: the builtin bases (OSError, ImportError) would otherwise
        # pickle their own idea of ``args`` and fail to call our constructors.
        self._args = args

    def __reduce__(self) -> tuple[type[ChatparseError], tuple[object, ...]]:
        return (type(self), self._args)


class AdapterError(ChatparseError):
    """Something went wrong finding or loading an adapter.

    .. versionadded:: 0.1
    """


class _PluginNotFoundError(ChatparseError, LookupError):
    """No plugin of one kind (:attr:`_kind`) has the requested name."""

    _kind: ClassVar[str]

    def __init__(self, name: str, available: Iterable[str]) -> None:
        self.name = name
        self.available = tuple(available)
        self._keep(name, self.available)
        names = ", ".join(self.available) or "none"
        super().__init__(
            f"no chatparse {self._kind} is named {name!r}; available: {names}. "
            "Check the spelling, or install the package that provides it."
        )


class _PluginLoadError(ChatparseError, ImportError):
    """A plugin of one kind (:attr:`_kind`) is declared, but could not be loaded."""

    _kind: ClassVar[str]

    def __init__(self, name: str, distribution: str | None, reason: str) -> None:
        provider = distribution or "an unknown distribution"
        super().__init__(
            f"chatparse {self._kind} {name!r} from {provider} could not be loaded: {reason}. "
            f"Reinstall or upgrade {provider}, or report the problem to its authors."
        )
        # After ImportError.__init__, which would reset ``name`` to None.
        self.name = name
        self.distribution = distribution
        self.reason = reason
        self._keep(name, distribution, reason)


class AdapterNotFoundError(_PluginNotFoundError, AdapterError):
    """No adapter is registered under the requested name.

    .. versionadded:: 0.1
    """

    _kind = "adapter"


class AdapterLoadError(_PluginLoadError, AdapterError):
    """An adapter is registered, but importing or checking it failed.

    The original exception is chained as ``__cause__``.

    .. versionadded:: 0.1
    """

    _kind = "adapter"


class AdapterConflictError(AdapterError, LookupError):
    """One adapter name is claimed twice and chatparse will not guess which one is meant.

    Raised when two plugins declare the same name and that name is requested, and when
    :func:`chatparse.register_adapter` would replace an adapter without ``replace=True``.

    .. versionadded:: 0.1
    """

    def __init__(self, name: str, claimants: Iterable[str], advice: str) -> None:
        self.name = name
        self.claimants = tuple(claimants)
        self.advice = advice
        self._keep(name, self.claimants, advice)
        super().__init__(
            f"chatparse adapter name {name!r} is claimed by {', '.join(self.claimants)}; {advice}"
        )


class UnavailableCause(StrEnum):
    """Why a container cannot be read, for code that decides what to do about it.

    :attr:`SourceUnavailableError.reason` says it to people; this says it to programs, so that no
    caller has to look for words in a message.

    .. versionadded:: 0.2
    """

    MISSING = "missing"
    """The file, or the conversation inside it, is not there (any more): scan again."""
    UNREADABLE = "unreadable"
    """It is there, but this process may not read it (permissions, a folder on the way)."""
    LOCKED = "locked"
    """Another program held a lock on the database past the busy retries: retry later."""
    DAMAGED = "damaged"
    """It is read, but its container is corrupt past reading."""
    NOT_A_DATABASE = "not-a-database"
    """A database was expected and the file is not one."""
    OTHER = "other"
    """Anything else; :attr:`SourceUnavailableError.reason` says what."""

    @classmethod
    def of(cls, error: OSError) -> UnavailableCause:
        """The cause an :class:`OSError` from opening or reading a file stands for."""
        if isinstance(error, FileNotFoundError | NotADirectoryError):
            return cls.MISSING
        if isinstance(error, PermissionError | IsADirectoryError):
            return cls.UNREADABLE
        return cls.OTHER


class SourceUnavailableError(ChatparseError, OSError):
    """A container (file, directory or database) is missing, unreadable, locked, or not a DB.

    ``cause`` says which, as an :class:`UnavailableCause`.

    .. versionadded:: 0.1
    .. versionchanged:: 0.2
       ``cause``.
    """

    def __init__(
        self,
        path: str,
        reason: str,
        advice: str = "",
        cause: UnavailableCause = UnavailableCause.OTHER,
    ) -> None:
        self.path = path
        self.reason = reason
        self.advice = advice
        self.cause = cause
        self._keep(path, reason, advice, cause)
        message = f"{path}: {reason}"
        super().__init__(f"{message}. {advice}" if advice else message)
        # OSError's own attribute, set after __init__ so its two-argument form is not triggered.
        self.filename = path

    def __str__(self) -> str:
        # OSError would render "[Errno None] None: 'path'" once filename is set.
        return str(self.args[0])


class RedactorError(ChatparseError):
    """Something went wrong finding or loading a redactor by name.

    .. versionadded:: 0.2
    """


class RedactorNotFoundError(_PluginNotFoundError, RedactorError):
    """No redactor has the requested name.

    .. versionadded:: 0.2
    """

    _kind = "redactor"


class RedactorLoadError(_PluginLoadError, RedactorError):
    """A redactor is declared under the name, but importing, building or checking it failed.

    The original exception, if any, is chained as ``__cause__``.

    .. versionadded:: 0.2
    """

    _kind = "redactor"


class UnsupportedInputError(ChatparseError, ValueError):
    """No adapter recognises a path given to :func:`chatparse.parse_path`.

    .. versionadded:: 0.1
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        self._keep(path, reason)
        super().__init__(f"{path}: {reason}")


class MissingExtraError(ChatparseError, ImportError):
    """A feature needs an optional package that is not installed; the message names the extra.

    ``module`` is the package that could not be imported, ``extra`` the chatparse extra that
    installs it (``pip install 'chatparse[arrow]'``).

    .. versionadded:: 0.2
    """

    def __init__(self, module: str, extra: str) -> None:
        self.module = module
        self.extra = extra
        self._keep(module, extra)
        super().__init__(
            f"this feature needs {module}, which is not installed: "
            f"pip install 'chatparse[{extra}]'",
            name=module,
        )


class PriceFileError(ChatparseError, ValueError):
    """A price file given for usage costs cannot be used: unreadable, not JSON, or a bad price.

    ``line`` is the line of the file where the problem is, when known.

    .. versionadded:: 0.2
    """

    def __init__(self, path: str, line: int | None, reason: str) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        self._keep(path, line, reason)
        where = f"{path}, line {line}" if line is not None else path
        super().__init__(f"{where}: {reason}")


class ModelError(ChatparseError, ValueError):
    """Serialized data does not describe a valid model object.

    ``errors`` holds one line per problem, each ending in the JSON path of the bad field, such as
    ``invalid value for type, expected str @ $.messages[3].role``.

    .. versionadded:: 0.1
    """

    def __init__(self, what: str, errors: Iterable[str]) -> None:
        self.what = what
        self.errors = tuple(errors)
        self._keep(what, self.errors)
        details = "; ".join(self.errors)
        super().__init__(
            f"cannot read {what}: {details}. The data was not written by chatparse.to_dict, "
            "or was edited or truncated after it was."
        )


class WorkersCannotStartError(ChatparseError, RuntimeError):
    """The worker processes of ``workers=N`` cannot start, or cannot load what they must run.

    The workers print their own error (on standard error). The usual causes, under the
    ``spawn`` and ``forkserver`` start methods: the script that asks for workers does not start
    them under ``if __name__ == "__main__":``, or the function given to
    :func:`~chatparse.map_conversations` cannot be imported by them (it was defined in
    ``python -c`` or a notebook rather than in a module).

    .. versionadded:: 0.2
    """

    def __init__(self) -> None:
        self._keep()
        super().__init__(
            "worker processes could not start, or could not load the function they were given "
            "(their own error is printed above); under the 'spawn' and 'forkserver' start "
            'methods, start them under `if __name__ == "__main__":`, and give '
            "map_conversations a function defined in a module the workers can import"
        )


class ChatparseWarning(UserWarning):
    """Root of every warning chatparse emits.

    .. versionadded:: 0.1
    """


class ParseWarning(ChatparseWarning):
    """A conversation was skipped by a bulk operation because parsing it raised.

    .. versionadded:: 0.1
    """


class SkippedSourceWarning(ChatparseWarning):
    """A scan passed over a folder or store it could not read, and went on without it.

    A folder that cannot be listed, a database locked longer than the busy retry or damaged past
    reading: the conversations in it are not listed, and this warning names it, so that a scan
    never comes up short in silence. ``chatparse doctor`` shows what each adapter can read.

    .. versionadded:: 0.1
    """
