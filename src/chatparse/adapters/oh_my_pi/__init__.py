"""Oh My Pi (can1357/oh-my-pi, ``omp``), a fork of Pi: its session files and sub-agents.

Where they are: the agent folder ``~/.omp/agent`` (``$PI_CONFIG_DIR`` renames ``.omp``;
``$PI_CODING_AGENT_DIR``, or early 2026 builds' ``$OMP_CODING_AGENT_DIR``, moves the agent
folder), with ``sessions/<encoded cwd>/<time>_<id>.jsonl`` in it; named profiles in
``~/.omp/profiles/<name>/agent``; on Linux and macOS, ``$XDG_DATA_HOME/omp/sessions`` (and
``.../omp/profiles/<name>/sessions``) once ``omp config migrate`` made ``$XDG_DATA_HOME/omp``.
Session ids are nanoids. A sub-agent's transcript is ``<parent's folder>/<parent's
name>/<agent>.jsonl``, its own sub-agents one folder further down.

The records are Pi's version 3 (see :mod:`chatparse.adapters._pi`) with: a 256-byte title slot
as the first line (``{type: "title", v: 1, title, source?, updatedAt, pad}``), a header with
``title``, ``titleSource`` and ``parentSession`` holding a session id, ``model_change`` with a
``provider/model`` string, and entry types of its own: ``title_change``, ``model_usage`` (usage
of side calls, counted), ``session_init``, ``service_tier_change``, ``mode_change``,
``reset_boundary``, ``archive``, ``ttsr_injection``, ``credential_pin``.

See ``docs/sources/oh-my-pi.md`` for what is kept, what is skipped and why.
"""

from __future__ import annotations

from chatparse.adapters.oh_my_pi.adapter import OhMyPiAdapter
from chatparse.adapters.oh_my_pi.locate import session_roots

__all__ = ["OhMyPiAdapter", "session_roots"]
