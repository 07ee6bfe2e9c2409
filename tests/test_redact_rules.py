"""The default redactor on strings: every rule's secrets are found, ordinary text is left alone."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chatparse.redaction import (
    ASSIGNMENT_RULES,
    GITLEAKS_RULES,
    ChainRedactor,
    NameRule,
    PatternRedactor,
    Redacted,
    Rule,
    default_redactor,
    marker,
    shannon_entropy,
)

ALL_RULES = [
    pytest.param(rule, id=f"{rule.kind}-{index}")
    for index, rule in enumerate((*GITLEAKS_RULES, *ASSIGNMENT_RULES))
]
BEFORE, AFTER = "see this: ", "\nand go on"
DIGITS = "1234567890" * 2


def accepted_secrets(rule: Rule, text: str) -> list[str]:
    """The secrets ``rule`` alone finds in ``text`` (those that pass its entropy and check)."""
    if isinstance(rule.pattern.pattern, bytes):  # matched against the lower-cased text
        matches: Iterable[re.Match[Any]] = rule.pattern.finditer(
            text.encode("ascii", "replace").lower()
        )
    else:
        matches = rule.pattern.finditer(text)
    spans = (rule.secret_span(match, text) for match in matches)
    return [text[start:end] for start, end in (span for span in spans if span is not None)]


@pytest.mark.parametrize("rule", ALL_RULES)
@settings(max_examples=5, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(data=st.data())
def test_every_string_a_rule_matches_is_redacted_and_the_text_around_kept(
    rule: Rule, data: st.DataObject
) -> None:
    """A string drawn from a rule's own pattern, placed in text, leaves no secret behind."""
    drawn = data.draw(st.from_regex(rule.pattern, fullmatch=True))
    planted = drawn.decode("ascii", "replace") if isinstance(drawn, bytes) else drawn
    text = f"{BEFORE}{planted}{AFTER}"
    secrets = accepted_secrets(rule, text)
    redacted = default_redactor().redact(text)
    assert not accepted_secrets(rule, redacted.text)
    for secret in set(secrets):  # each gone where it was; the same text may be a user name too
        assert redacted.text.count(secret) <= text.count(secret) - secrets.count(secret)
    if secrets:
        assert redacted.kinds
        assert redacted.text.startswith(BEFORE.rstrip())
        assert redacted.text.endswith(AFTER)
    assert default_redactor().redact(redacted.text) == (redacted.text, ())


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("export AWS_ACCESS_KEY_ID=AKIAQ3EGRF5JX7M2PLNB", "aws-access-token"),
        ("the key (AIzaSyB7xQ2mN4pK9rT1vW3yZ5cE8gH0jL6nP-s).", "gcp-api-key"),
        (
            "git clone https://x:ghp_R8mK2pQ9sT1vW4yZ7bC0eF3hJ6nA5dG8jL1q@github.com/o/r",
            "github-pat",
        ),
        ("postgres://app:pa55w0rd@db.internal:5432/app", "url-password"),
        ('DB_PASSWORD="hunter2"', "secret-assignment"),
        ("PGPASSWORD=hunter2 psql", "secret-assignment"),
        ("docker login --password hunter2x", "secret-assignment"),
        ("password: s3cr3t-pass", "secret-assignment"),
        ("curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA=='", "authorization-header"),
        ("Bearer 4f9a0c2e7b1d3f5a8c6e", "bearer-token"),
    ],
)
def test_secrets_in_context_are_replaced_by_their_kind(text: str, kind: str) -> None:
    """A secret written the way transcripts write it is replaced by ``[REDACTED:<kind>]``."""
    redacted = default_redactor().redact(text)
    assert redacted.kinds == (kind,)
    assert marker(kind) in redacted.text


@pytest.mark.parametrize(
    "text",
    [
        "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        "session 019b7c2e-4a10-7d3e-9b21-6f0c8e1d2a01 in toolu_01ABCDefGHijKLmnOPqrSTuv",
        "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
        "/home/user/projects/very_long_module_name/src/some_file_with_a_long_name.py",
        "tokenizer = AutoTokenizer.from_pretrained(model_name)",
        "max_tokens: 4096, token_count = 12, secretName: my-secret",
        "password: string; token: Token; apiKey: process.env.API_KEY",
        "password = self.password  # from the config",
        'TOKEN=$(gh auth token) API_KEY="${API_KEY}" password: "<your password>"',
        "if password == '': raise ValueError('no password')",
        "Use a token: run `gh auth login` first, then pass --token-file ~/.token",
        "PWD=/home/user/project",
    ],
)
def test_ordinary_content_is_left_alone(text: str) -> None:
    """Hashes, ids, base64, paths, code that names secrets and placeholders are not secrets."""
    assert default_redactor().redact(text) == (text, ())


def test_a_private_key_cut_off_before_its_end_line_is_still_replaced() -> None:
    """A truncated PEM block loses its base64 body too, up to the first prose after it."""
    body = "\n".join(["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"] * 3)
    text = f"cat id_rsa\n-----BEGIN PRIVATE KEY-----\n{body}\n[output truncated]"
    redacted = default_redactor().redact(text)
    assert redacted.text == f"cat id_rsa\n{marker('private-key')}\n[output truncated]"


def test_overlapping_secrets_are_replaced_once_under_the_first_listed_rule() -> None:
    """A token assigned to a secret name counts once, under the token's own kind."""
    token = "ghp_R8mK2pQ9sT1vW4yZ7bC0eF3hJ6nA5dG8jL1q"  # noqa: S105 -- a made-up one, to redact
    redacted = default_redactor().redact(f'GITHUB_TOKEN="{token}"')
    assert redacted == (f'GITHUB_TOKEN="{marker("github-pat")}"', ("github-pat",))


def test_field_names_that_name_a_secret_redact_the_whole_value() -> None:
    """``redact_field`` uses the JSON key; names that only contain a secret word do not count."""
    redactor = default_redactor()
    assert redactor.redact_field("password", "hunter2") == (
        marker("secret-assignment"),
        ("secret-assignment",),
    )
    assert redactor.redact_field("X-Api-Key", "k-1") == ("k-1", ())  # too short to be a key
    assert redactor.redact_field("secretName", "my-secret") == ("my-secret", ())
    assert redactor.redact_field("token", "null") == ("null", ())


def test_a_users_own_rules_and_a_chain() -> None:
    """A company's token format plugs in as a Rule, chained after the default rules."""
    acme = PatternRedactor(
        [Rule(kind="acme-token", pattern=r"ACME-[0-9a-f]{16}", keywords=["acme-"], token=True)]
    )
    chain = ChainRedactor([default_redactor(), acme])
    text = "ACME-0123456789abcdef and AKIAQ3EGRF5JX7M2PLNB"
    assert chain.redact(text) == (
        f"{marker('acme-token')} and {marker('aws-access-token')}",
        ["aws-access-token", "acme-token"],
    )
    assert chain.redact_field("password", "hunter2")[1] == ["secret-assignment"]


def test_rules_without_keywords_are_always_tried() -> None:
    """A rule with no keywords is tried on every string, token or not."""
    for token in (True, False):
        redactor = PatternRedactor([Rule(kind="digits", pattern=r"\d{20,}", token=token)])
        assert redactor.redact(f"id {DIGITS} x") == ("id [REDACTED:digits] x", ("digits",))


def test_rule_and_name_rule_check_their_arguments() -> None:
    """Kinds are lower-case words joined by '-'; keywords are ASCII."""
    with pytest.raises(ValueError, match="kind"):
        Rule(kind="Bad Kind", pattern="x")
    with pytest.raises(ValueError, match="keywords"):
        Rule(kind="k", pattern="x", keywords=["ключ"])
    with pytest.raises(ValueError, match="kind"):
        NameRule(kind="", name="x")
    assert Rule(kind="k", pattern=re.compile("x"), keywords=["AbC"]).keywords == ("abc",)


def test_entropy() -> None:
    """Bits per character: zero for one repeated character, log2 of the alphabet at most."""
    assert shannon_entropy("") == 0
    assert shannon_entropy("aaaa") == 0
    assert shannon_entropy("abcd") == 2
    assert Redacted("x") == ("x", ())
