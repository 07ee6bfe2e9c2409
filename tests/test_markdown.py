"""Markdown transcripts: readable, complete, and inert whatever the transcript holds."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from chatparse import _markdown
from chatparse.decoders.jsonl import MAX_DEPTH
from chatparse.model import (
    ConversationMeta,
    ImageRef,
    Message,
    ParsedConversation,
    ToolCall,
)

HOSTILE = (
    "# Not a heading\n"
    "<script>alert(1)</script>\n"
    "<img src=x onerror=alert(1)>\n"
    "```\nnot a fence\n```\n"
    "- not a list\n"
    "1. not ordered\n"
    "> not a quote\n"
    "Title\n===\n"
    "    not code\n"
    "[link](javascript:alert(1)) ![img](x) &amp; | a | b |\n"
    "*em* __strong__ ~~strike~~ `code` \\ backslash"
)


def conversation(text: str, **extra: object) -> ParsedConversation:
    meta = ConversationMeta(source="codex", id="c1", path="/p", fingerprint="f")
    message = Message(
        id="m1",
        role="user",
        text=text,
        timestamp=datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC),
        **extra,  # type: ignore[arg-type]
    )
    return ParsedConversation(
        source="codex", id="c1", meta=meta, parser_version="1", title=text, messages=(message,)
    )


PROSE = {"text", "inline", "softbreak", "hardbreak", "paragraph_open", "paragraph_close"}


def structure(markdown: str) -> list[str]:
    """Every token type other than prose (text, breaks, paragraphs), in document order."""
    tokens = MarkdownIt("commonmark").enable("table").enable("strikethrough").parse(markdown)
    kinds: list[str] = []
    for token in tokens:
        kinds.append(token.type)
        kinds.extend(child.type for child in token.children or ())
    return [kind for kind in kinds if kind not in PROSE]


def test_hostile_text_stays_inert() -> None:
    """HTML, headings, fences, lists, links and emphasis in user text become plain text."""
    rendered = _markdown.render(conversation(HOSTILE))
    html = MarkdownIt("commonmark").render(rendered)
    assert "<script>" not in html
    assert "<img" not in html
    assert "<a " not in html
    assert "<em>" not in html
    assert "<pre>" not in html
    # Only what the renderer itself writes is structure: two headings, the facts list, paragraphs.
    assert structure(rendered) == structure(_markdown.render(conversation("plain")))


def test_escaped_text_reads_back_as_the_same_characters() -> None:
    """Rendering the escaped text gives back exactly the original characters."""
    html = MarkdownIt("commonmark").render(_markdown.escape("a *b* <c> & `d` #e"))
    assert html == "<p>a *b* &lt;c&gt; &amp; `d` #e</p>\n"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab#*_-+=>`<&![]()|~\\ 1.\n"), max_size=40))
def test_any_text_makes_no_structure(text: str) -> None:
    """No arrangement of Markdown's special characters in a message creates structure."""
    assert structure(_markdown.render(conversation(text))) == structure(
        _markdown.render(conversation("plain"))
    )


@pytest.mark.parametrize("content", ["plain", "```", "a ```` b", "`x`"])
def test_fence_is_longer_than_any_backtick_run(content: str) -> None:
    """A tool output holding backtick runs cannot close its fence early."""
    block = _markdown.fence(content)
    tokens = MarkdownIt("commonmark").parse(block)
    assert [t.type for t in tokens] == ["fence"]
    assert tokens[0].content == content + "\n"


def test_full_transcript_parts() -> None:
    """Thinking is folded, tool calls show input and output, images are placeholders."""
    call = ToolCall(id="t1", name="Bash", input={"command": "ls ```"}, output="a\nb", is_error=True)
    rendered = _markdown.render(
        conversation(
            "hello",
            thinking="let me think <b>",
            tool_calls=(call,),
            images=(ImageRef(media_type="image/png", byte_size=123),),
        )
    )
    assert "<details><summary>Thinking</summary>" in rendered
    assert "let me think \\<b\\>" in rendered
    assert "**Tool call** Bash (error)" in rendered
    assert '"command": "ls ```"' in rendered
    assert "\\[image: image/png, 123 bytes\\]" in rendered
    assert "2025-01-02 03:04:05 UTC" in rendered


def test_tool_input_as_deep_as_the_decoders_accept_renders() -> None:
    """Python 3.11's json raised RecursionError on an input nested about 1,000 deep."""
    deep: list[object] = []
    for _ in range(MAX_DEPTH - 1):
        deep = [deep]
    rendered = _markdown.render(
        conversation("x", tool_calls=(ToolCall(id="t", name="Bash", input=deep),))
    )
    assert rendered.count("[") >= MAX_DEPTH
