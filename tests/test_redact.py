"""``chatparse.redaction.redact``: secrets planted in every field never leave, the rest is kept."""

from __future__ import annotations

import base64
import json
import pickle
import random
import string
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chatparse
from chatparse.model import (
    ConversationMeta,
    Diagnostics,
    Message,
    ParsedConversation,
    ToolCall,
    UnknownRecord,
    Usage,
)
from chatparse.redaction import count_redactions, marker, redact

from strategies import conversations

_RNG = random.Random(30)  # noqa: S311 -- reproducible test data, not cryptography
_ALNUM = string.ascii_letters + string.digits


def _draw(alphabet: str, size: int) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(size))


def _b64url(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def _pem() -> tuple[str, str]:
    body = "\n".join(_draw(_ALNUM + "+/", 64) for _ in range(4))
    return f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----", body


_PASSWORD = "Tr0ub4dor-" + _draw(_ALNUM, 6)
_JWT = ".".join(
    (
        _b64url({"alg": "HS256", "typ": "JWT"}),
        _b64url({"sub": _draw(_ALNUM, 12)}),
        _draw(_ALNUM, 43),
    )
)
_PEM, _PEM_BODY = _pem()
_AZURE_KEY = _draw(_ALNUM, 86) + "=="

# (kind, text as planted, the part of it that must not survive)
_PLANTS = [
    ("aws-access-token", "AKIA" + _draw("ABCDEFGHJKLMNPQRSTUVWXYZ234567", 16), None),
    ("gcp-api-key", "AIza" + _draw(_ALNUM, 35), None),
    ("azure-ad-client-secret", _draw(_ALNUM, 3) + "8Q~" + _draw(_ALNUM, 34), None),
    ("azure-storage-account-key", f"Protocol=https;AccountKey={_AZURE_KEY}", _AZURE_KEY),
    ("github-pat", "ghp_" + _draw(_ALNUM, 36), None),
    ("gitlab-pat", "glpat-" + _draw(_ALNUM, 20), None),
    ("slack-bot-token", f"xoxb-{_draw(string.digits, 11)}-{_draw(string.digits, 13)}-ab12", None),
    ("stripe-access-token", "sk_live_" + _draw(_ALNUM, 24), None),
    ("openai-api-key", f"sk-proj-{_draw(_ALNUM, 74)}T3BlbkFJ{_draw(_ALNUM, 74)}", None),
    ("anthropic-api-key", f"sk-ant-api03-{_draw(_ALNUM, 93)}AA", None),
    ("jwt", _JWT, None),
    ("private-key", _PEM, None),
    ("url-password", f"postgres://admin:{_PASSWORD}@db.example.com/app", _PASSWORD),
    ("secret-assignment", f"export DB_PASSWORD={_PASSWORD}", _PASSWORD),
]

SAMPLES: dict[str, tuple[str, str, str]] = {
    kind: (planted, secret or planted, planted.replace(secret or planted, marker(kind)))
    for kind, planted, secret in _PLANTS
}
"""kind -> (text as planted, the part that must not survive, the text as it must come out)."""

T0 = datetime(2026, 1, 2, 10, tzinfo=UTC)
META = ConversationMeta(source="claude-code", id="s1", path="/h/s1.jsonl", fingerprint="9:1")


def build(  # noqa: PLR0913 -- one keyword per field a secret can be planted in
    *,
    text: str = "hello",
    thinking: str | None = None,
    tool_input: Any = None,
    output: str | None = None,
    result: Any = None,
    title: str | None = None,
    meta_title: str | None = None,
    raw: str = "{}",
    warning: str = "a note",
    subagents: tuple[ParsedConversation, ...] = (),
) -> ParsedConversation:
    call = ToolCall(id="toolu_1", name="Bash", input=tool_input, output=output, result=result)
    return ParsedConversation(
        source="claude-code",
        id="s1",
        meta=attrs.evolve(META, title=meta_title),
        parser_version="4",
        title=title,
        created_at=T0,
        messages=(
            Message(id="m1", role="user", text="run it", timestamp=T0),
            Message(
                id="m2",
                role="assistant",
                parent_id="m1",
                text=text,
                thinking=thinking,
                tool_calls=(call,),
                timestamp=T0,
                model="claude-opus-4-1",
                usage=Usage(input_tokens=10, output_tokens=5, dedup_key="r1"),
            ),
        ),
        subagents=subagents,
        diagnostics=Diagnostics(
            records_seen=3,
            records_used=2,
            unknown=(UnknownRecord(where="line 3", type="odd", raw=raw),),
            warnings=(warning,),
        ),
    )


def call_of(conversation: ParsedConversation) -> ToolCall:
    return conversation.messages[1].tool_calls[0]


Place = tuple[Callable[[str], ParsedConversation], Callable[[ParsedConversation], Any]]

PLACES: dict[str, Place] = {
    "title": (lambda s: build(title=s), lambda c: c.title),
    "scan title": (lambda s: build(meta_title=s), lambda c: c.meta.title),
    "text": (lambda s: build(text=s), lambda c: c.messages[1].text),
    "thinking": (lambda s: build(thinking=s), lambda c: c.messages[1].thinking),
    "tool input, deep": (
        lambda s: build(tool_input={"args": [{"env": {"list": [1, s]}}]}),
        lambda c: call_of(c).input["args"][0]["env"]["list"][1],
    ),
    "tool input, a key": (
        lambda s: build(tool_input={"headers": {s: "v"}}),
        lambda c: next(iter(call_of(c).input["headers"])),
    ),
    "tool output": (lambda s: build(output=s), lambda c: call_of(c).output),
    "tool result, deep": (
        lambda s: build(result={"stdout": [[s]], "n": 1}),
        lambda c: call_of(c).result["stdout"][0][0],
    ),
    "unknown raw": (lambda s: build(raw=s), lambda c: c.diagnostics.unknown[0].raw),
    "warning": (lambda s: build(warning=s), lambda c: c.diagnostics.warnings[0]),
    "sub-agent": (
        lambda s: build(subagents=(build(text=s),)),
        lambda c: c.subagents[0].messages[1].text,
    ),
    "sub-agent's sub-agent": (
        lambda s: build(subagents=(build(subagents=(build(thinking=s),)),)),
        lambda c: c.subagents[0].subagents[0].messages[1].thinking,
    ),
}


def leaks(secret: str, conversation: ParsedConversation) -> list[str]:
    """The lines of ``secret`` (8 characters or more) found anywhere in the conversation's JSON."""
    document = json.dumps(chatparse.to_dict(conversation), ensure_ascii=False)
    return [line for line in secret.splitlines() if len(line) >= 8 and line in document]


def kept(conversation: ParsedConversation) -> Any:
    """Everything redaction must not change: ids, times, usage, names, counts, JSON shapes."""
    return (
        (conversation.source, conversation.id, conversation.meta.path, conversation.created_at),
        [
            (
                m.id,
                m.role,
                m.parent_id,
                m.timestamp,
                m.model,
                m.usage,
                m.kind,
                *(
                    (t.id, t.name, t.is_error, shape(t.input), shape(t.result))
                    for t in m.tool_calls
                ),
            )
            for m in conversation.messages
        ],
        attrs.evolve(conversation.diagnostics, unknown=(), warnings=(), redactions={}),
        [shape(u.raw) for u in conversation.diagnostics.unknown],
        [kept(s) for s in conversation.subagents],
    )


def shape(value: Any) -> Any:
    if isinstance(value, dict):
        return ("object", [shape(v) for v in value.values()])
    if isinstance(value, list | tuple):
        return ("array", [shape(v) for v in value])
    return "text" if isinstance(value, str) else value


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("kind", SAMPLES)
def test_a_planted_secret_never_leaves_and_the_text_around_it_stays(kind: str, place: str) -> None:
    """Every supported kind, in every field that can hold one, is replaced and counted."""
    planted, secret, expected = SAMPLES[kind]
    make, read = PLACES[place]
    original = make(f"before {planted} after")
    redacted = redact(original)
    assert read(redacted) == f"before {expected} after"
    assert leaks(secret, original)
    assert not leaks(secret, redacted)
    assert count_redactions(redacted) == {kind: 1}
    assert kept(redacted) == kept(original)


def test_a_secret_split_across_a_tool_inputs_nesting_is_found_by_its_name() -> None:
    """A value is known by the key it is under, or by the name beside it in a name/value pair."""
    token = "tok" + _draw(_ALNUM, 30)
    tool_input = {
        "env": {"DB_PASSWORD": _PASSWORD, "HOME": "/home/me"},
        "pairs": [{"name": "API_KEY", "value": token}, {"name": "REGION", "value": "eu-west-1"}],
        "headers": {"Authorization": f"Bearer {token}"},
    }
    redacted = redact(build(tool_input=tool_input))
    assert call_of(redacted).input == {
        "env": {"DB_PASSWORD": marker("secret-assignment"), "HOME": "/home/me"},
        "pairs": [
            {"name": "API_KEY", "value": marker("secret-assignment")},
            {"name": "REGION", "value": "eu-west-1"},
        ],
        "headers": {"Authorization": f"Bearer {marker('bearer-token')}"},
    }
    assert redacted.diagnostics.redactions == {"bearer-token": 1, "secret-assignment": 2}


def test_counts_are_per_conversation_and_add_up_over_sub_agents() -> None:
    """Each sub-agent counts its own secrets; count_redactions sums them when asked to."""
    github = SAMPLES["github-pat"][0]
    nested = build(text=github, subagents=(build(text=f"{github} {github}"),))
    redacted = redact(nested)
    assert redacted.diagnostics.redactions == {"github-pat": 1}
    assert redacted.subagents[0].diagnostics.redactions == {"github-pat": 2}
    assert count_redactions(redacted) == {"github-pat": 3}
    assert count_redactions(redacted, include_subagents=False) == {"github-pat": 1}


def test_nothing_to_redact_gives_back_the_same_objects() -> None:
    """A conversation without secrets is returned as it is, so redaction is cheap there."""
    original = build(tool_input={"command": "ls -la", "n": [1, 2.5, None, True]})
    assert redact(original) is original


def test_keys_redacted_to_the_same_text_keep_every_entry() -> None:
    """Two token keys of one object become ``marker`` and ``marker #2``: no entry is lost."""
    first, second = ("ghp_" + _draw(_ALNUM, 36) for _ in range(2))
    redacted = redact(build(tool_input={first: 1, second: 2}))
    assert call_of(redacted).input == {marker("github-pat"): 1, f"{marker('github-pat')} #2": 2}


def test_values_nested_past_the_recursion_limit_are_walked() -> None:
    """A tool input nested 3,000 deep (past Python's recursion limit) is redacted all the way."""
    github = SAMPLES["github-pat"][0]
    deep: Any = [github]
    for _ in range(3000):
        deep = {"x": deep}
    found = call_of(redact(build(tool_input=deep))).input
    for _ in range(3000):
        found = found["x"]
    assert found == [marker("github-pat")]


def test_a_value_that_contains_itself_is_refused() -> None:
    """A container inside itself (only a plugin could make one) raises rather than loops."""
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="contains itself"):
        redact(build(tool_input=loop))


class Upper:
    """A user's own redactor: replaces the word "secret", knows nothing of field names."""

    def redact(self, text: str) -> tuple[str, Sequence[str]]:
        count = text.count("secret")
        return text.replace("secret", marker("word")), ["word"] * count


def test_a_users_redactor_is_used_for_every_string() -> None:
    """``redactor=`` replaces the default; a redactor without redact_field gets plain strings."""
    redacted = redact(build(text="a secret", tool_input={"password": "secret"}), Upper())
    assert redacted.messages[1].text == f"a {marker('word')}"
    assert call_of(redacted).input == {"password": marker("word")}
    assert redacted.diagnostics.redactions == {"word": 2}
    assert redact(redacted, Upper()) == redacted


class Broken:
    def redact(self, text: str) -> tuple[str, Sequence[str]]:
        return text, [1]  # type: ignore[list-item]  # the mistake under test


def test_a_redactor_that_breaks_the_protocol_is_named() -> None:
    """Kinds that are not strings raise TypeError before they reach the model."""
    with pytest.raises(TypeError, match="a redactor must return"):
        redact(build(), Broken())


def test_a_redacted_conversation_serializes_pickles_and_old_json_still_loads() -> None:
    """The counts round-trip through JSON and pickle; JSON written before them still loads."""
    redacted = redact(build(text=SAMPLES["jwt"][0]))
    assert chatparse.from_json(chatparse.to_json(redacted)) == redacted
    assert pickle.loads(pickle.dumps(redacted)) == redacted  # noqa: S301 -- our own bytes
    older = chatparse.to_dict(build())
    assert "redactions" not in older["diagnostics"]  # written only when there are some
    assert chatparse.from_dict(older).diagnostics.redactions == {}


def _with_secret(conversation: ParsedConversation, kind: str) -> ParsedConversation:
    planted = SAMPLES[kind][0]
    if not conversation.messages:
        return conversation
    first = conversation.messages[0]
    changed = attrs.evolve(first, text=f"{first.text} {planted} ")
    return attrs.evolve(conversation, messages=(changed, *conversation.messages[1:]))


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(conversation=conversations, kind=st.sampled_from(sorted(SAMPLES)))
def test_redaction_is_deterministic_idempotent_and_keeps_the_structure(
    conversation: ParsedConversation, kind: str
) -> None:
    """On any conversation: same output twice, nothing more the second time, structure kept."""
    conversation = _with_secret(conversation, kind)
    once = redact(conversation)
    assert redact(conversation) == once
    assert redact(once) == once
    assert kept(once) == kept(conversation)
    assert chatparse.from_json(chatparse.to_json(once)) == once
    if conversation.messages:
        assert not leaks(SAMPLES[kind][1], once)
