"""Markdown transcripts: the conversation's own Markdown kept, the transcript's structure safe.

Checked by parsing the output with a real CommonMark parser (markdown-it-py, with GitHub's tables
and strikethrough) and looking at the tokens, not at the text.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token

from chatparse import _markdown
from chatparse.decoders.jsonl import MAX_DEPTH
from chatparse.model import ConversationMeta, Message, ParsedConversation, ToolCall

PARSER = MarkdownIt("commonmark").enable("table").enable("strikethrough")
OUR_LEVELS = [1, 2, 2]
"""The transcript's own headings in :func:`transcript`: its title, then two messages."""


def transcript(text: str, *, thinking: str | None = None) -> str:
    """An answer holding ``text``, then a user message with a tool call."""
    meta = ConversationMeta(source="codex", id="c1", path="/p", fingerprint="f")
    answer = Message(
        id="m1",
        role="assistant",
        text=text,
        thinking=thinking,
        timestamp=datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC),
    )
    call = ToolCall(id="t1", name="Bash", input={"command": "ls"}, output="done")
    question = Message(id="m2", role="user", text="thanks", tool_calls=(call,))
    return _markdown.render(
        ParsedConversation(
            source="codex",
            id="c1",
            meta=meta,
            parser_version="1",
            title="Title",
            messages=(answer, question),
        )
    )


def tokens(markdown: str) -> list[Token]:
    """Every token, inline children included, in document order."""
    flat: list[Token] = []
    for token in PARSER.parse(markdown):
        flat.append(token)
        flat.extend(token.children or ())
    return flat


def headings(markdown: str) -> list[tuple[int, str, int]]:
    """Each heading's level, text and nesting depth (0: not inside a list or quote)."""
    found = PARSER.parse(markdown)
    return [
        (int(token.tag[1:]), found[index + 1].content, token.level)
        for index, token in enumerate(found)
        if token.type == "heading_open"
    ]


def assert_structure_intact(markdown: str) -> None:
    """Check what no message may change in a transcript.

    No raw HTML; the transcript's own headings all there, at their levels, outside any list or
    quote, and nothing from the text at their levels; the tool call's input in its fence.
    """
    assert [t.type for t in tokens(markdown) if t.type.startswith("html")] == [], markdown
    ours = [(level, depth) for level, _, depth in headings(markdown) if level <= 2]
    assert ours == [(level, 0) for level in OUR_LEVELS], markdown
    assert headings(markdown)[-1][1].startswith("User · "), markdown
    fences = [t for t in PARSER.parse(markdown) if t.type == "fence" and t.level == 0]
    assert ('{\n  "command": "ls"\n}\n', "json") in [(t.content, t.info) for t in fences]


def test_code_blocks_stay_code_blocks() -> None:
    """A fenced block in an answer comes out as the same fenced block, language and all."""
    code = "def f(x):\n    # keep <b>this</b> & `that`\n    return x * 2\n"
    rendered = transcript(f"Here:\n\n```python\n{code}```\n\nDone.")
    [block] = [t for t in PARSER.parse(rendered) if t.type == "fence" and t.info == "python"]
    assert block.content == code
    assert_structure_intact(rendered)


def test_inline_markdown_is_kept() -> None:
    """Inline code (with angle brackets), emphasis, links and lists survive as themselves."""
    rendered = transcript(
        "Use `Vec<T>` and **bold** [docs](https://example.com)\n\n- one\n- two\n\n1. first"
    )
    found = tokens(rendered)
    assert [t.content for t in found if t.type == "code_inline"] == ["Vec<T>"]
    assert "strong_open" in [t.type for t in found]
    assert [t.attrGet("href") for t in found if t.type == "link_open"] == ["https://example.com"]
    kinds = [t.type for t in found]
    assert kinds.count("list_item_open") == 2 + 3  # the transcript's facts, then the answer's
    assert "ordered_list_open" in kinds


def test_headings_go_below_the_message_heading() -> None:
    """ATX and setext headings, also in lists and quotes, end up below the message's heading."""
    text = "# Plan\n\nIntro\n===\n\nPart\n---\n\n- # in a list\n\n> ## in a quote\n\n###### deep"
    rendered = transcript(text)
    from_text = [(level, title) for level, title, _ in headings(rendered) if level > 2]
    assert from_text == [
        (3, "Plan"),
        (3, "Intro"),
        (4, "Part"),
        (3, "in a list"),
        (4, "in a quote"),
        (6, "deep"),
    ]
    assert_structure_intact(rendered)


@pytest.mark.parametrize(
    "text",
    [
        "<script>alert(1)</script>",
        "see <img src=x onerror=alert(1)> here",
        "<!-- hidden -->",
        "<div>\n\n*block*\n\n</div>",
        "- <b>in a list</b>\n> <i>in a quote</i>",
        "a `b\nc` <script>x</script> `d`",
        "```\n<in a fence>\n```\n<script>after</script>",
    ],
)
def test_no_raw_html_gets_through(text: str) -> None:
    """HTML in a prompt is shown as text (escaped in the HTML), never handed to the renderer."""
    rendered = transcript(text)
    assert_structure_intact(rendered)
    html = PARSER.render(rendered)
    for tag in ("<script", "<img", "<div", "<b>", "<i>", "<!--"):
        assert tag not in html


def test_script_in_a_prompt_is_visible_text() -> None:
    """The characters of a tag are still there for the reader."""
    rendered = transcript("run <script>alert(1)</script> now")
    texts = [t.content for t in tokens(rendered) if t.type == "text"]
    assert "run <script>alert(1)</script> now" in "".join(texts)


@pytest.mark.parametrize(
    "text",
    ["```\nnever closed", "~~~~\nnever closed", "- ```\n  never closed", "> ```\n> never"],
)
def test_unclosed_fence_cannot_swallow_the_transcript(text: str) -> None:
    """A code block the model never closed ends with its message."""
    assert_structure_intact(transcript(text))


def test_thinking_keeps_its_markdown_inside_its_fold() -> None:
    """Thinking is Markdown too, folded in <details>, with its headings moved down."""
    rendered = transcript("answer", thinking="# Idea\n\n```sh\nls <dir>\n```")
    assert [t.content.strip() for t in tokens(rendered) if t.type == "html_block"] == [
        "<details><summary>Thinking</summary>",
        "</details>",
    ]
    assert (3, "Idea") in [(level, title) for level, title, _ in headings(rendered)]
    assert [t.content for t in PARSER.parse(rendered) if t.info == "sh"] == ["ls <dir>\n"]


@pytest.mark.parametrize("output", ["plain", "```", "a ```` b", "````\n```"])
def test_tool_output_fence_is_longer_than_any_backtick_run(output: str) -> None:
    """A tool output holding backtick runs comes back whole from its fence."""
    meta = ConversationMeta(source="codex", id="c1", path="/p", fingerprint="f")
    call = ToolCall(id="t1", name="Bash", input={}, output=output)
    message = Message(id="m1", role="assistant", text="", tool_calls=(call,))
    rendered = _markdown.render(
        ParsedConversation(
            source="codex", id="c1", meta=meta, parser_version="1", messages=(message,)
        )
    )
    assert output + "\n" in [t.content for t in PARSER.parse(rendered) if t.type == "fence"]


def test_metadata_is_plain_text() -> None:
    """A title or tool name is escaped into inert text that renders as the same characters."""
    html = PARSER.render(_markdown.escape("a *b* <c> & `d` #e"))
    assert html == "<p>a *b* &lt;c&gt; &amp; `d` #e</p>\n"


def test_tool_input_as_deep_as_the_decoders_accept_renders() -> None:
    """Python 3.11's json raised RecursionError on an input nested about 1,000 deep."""
    deep: list[object] = []
    for _ in range(MAX_DEPTH - 1):
        deep = [deep]
    meta = ConversationMeta(source="codex", id="c1", path="/p", fingerprint="f")
    call = ToolCall(id="t", name="Bash", input=deep)
    message = Message(id="m1", role="assistant", text="x", tool_calls=(call,))
    rendered = _markdown.render(
        ParsedConversation(
            source="codex", id="c1", meta=meta, parser_version="1", messages=(message,)
        )
    )
    assert rendered.count("[") >= MAX_DEPTH


FRAGMENTS = [
    *("```", "~~~", "````", "`", "``", "> ", ">", "- ", "* ", "+ ", "1. ", "2) ", "10. "),
    *("   ", "    ", " ", "\t", "#", "## ", "<b>", "</i>", "<!--", "<?", "<", "&", "|"),
    *("===", "---", "***", "a", "x y", "\n", "\n\n", "\\", "_", "[a]: /u", "[", "]:", "](u)"),
    *("> - ", "- > ", "  - ", "Title\n===\n", "<div>\n", "```py\n", "\n    x <b>\n"),
]


@settings(
    max_examples=1500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join))
# A ">" indented 4 or more after an open quote: code or paragraph text by the spec, but the
# quote's continuation for markdown-it (found by random draws).
@example("> - \n    > - <b>")
@example("> - \n    > - #")
@example("> a\n    > # x")
@example("> > - \n>     > <b>")
def test_no_arrangement_of_markdown_breaks_the_transcript(text: str) -> None:
    """Whatever a message holds, no HTML gets through and the transcript's structure holds."""
    assert_structure_intact(transcript(text))
