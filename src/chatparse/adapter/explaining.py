"""Lines for :meth:`~chatparse.adapter.Explainer.explain`, which ``chatparse doctor`` prints.

Most tools let an environment variable move their folder; ``explain`` says first whether it is
set, in the same words for every source.
"""

from __future__ import annotations

from chatparse.host import Host

__all__ = ["explain_variable"]


def explain_variable(host: Host, variable: str, replaces: str | None = None) -> str:
    """Whether ``variable`` is set on ``host``, as one line of ``explain``.

    With ``replaces``, the folder the variable stands in for: ``"GROK_HOME is set: /x (so
    ~/.grok is not read)"`` or ``"GROK_HOME is not set: using ~/.grok"``. Without it:
    ``"GROK_HOME is set: /x"`` or ``"GROK_HOME is not set"``. An empty value is not set.
    """
    value = host.getenv(variable)
    if replaces is None:
        return f"{variable} is set: {value}" if value else f"{variable} is not set"
    if value:
        return f"{variable} is set: {value} (so {replaces} is not read)"
    return f"{variable} is not set: using {replaces}"
