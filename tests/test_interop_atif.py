"""ATIF trajectories: steps, tool calls and their results, metrics, compaction, sub-agents, counts.

Validation against an independent implementation of the schema, on every golden and corpus
conversation, is in test_interop_validation.py.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from chatparse.interop import to_atif
from chatparse.model import (
    ConversationMeta,
    Diagnostics,
    ImageRef,
    Message,
    ParsedConversation,
    ToolCall,
    UnknownRecord,
    Usage,
)


def at(minute: int) -> datetime:
    return datetime(2025, 5, 1, 10, minute, tzinfo=UTC)


def conversation(*messages: Message, **fields: Any) -> ParsedConversation:
    identifier = fields.pop("id", "c1")
    meta = ConversationMeta(source="claude-code", id=identifier, path="/x.jsonl", fingerprint="f")
    return ParsedConversation(
        source="claude-code",
        id=identifier,
        meta=meta,
        parser_version="1",
        messages=messages,
        **fields,
    )


def test_steps_are_numbered_from_one_with_atif_sources_and_reasoning() -> None:
    """Each message is a step, in order, from 1; roles become user/agent/system."""
    trajectory = to_atif(
        conversation(
            Message(id="s", role="system", text="Be brief."),
            Message(id="u", role="user", text="Hi", timestamp=at(0)),
            Message(id="a", role="assistant", text="Hello", thinking="greet", model="m1"),
        )
    )
    steps = trajectory["steps"]
    assert [s["step_id"] for s in steps] == [1, 2, 3]
    assert [s["source"] for s in steps] == ["system", "user", "agent"]
    assert [s["message"] for s in steps] == ["Be brief.", "Hi", "Hello"]
    assert steps[1]["timestamp"] == "2025-05-01T10:00:00Z"
    assert "timestamp" not in steps[0]
    assert steps[2]["reasoning_content"] == "greet"
    assert steps[2]["model_name"] == "m1"
    assert [s["extra"]["message_id"] for s in steps] == ["s", "u", "a"]
    assert trajectory["schema_version"] == "ATIF-v1.7"
    assert trajectory["session_id"] == trajectory["trajectory_id"] == "c1"


def test_agent_names_the_source_its_version_and_main_model() -> None:
    """agent: the source's name, the producer's version ("unknown" without), the main model."""
    messages = [
        Message(id="a1", role="assistant", model="small"),
        Message(id="a2", role="assistant", model="big"),
        Message(id="a3", role="assistant", model="big"),
    ]
    agent = to_atif(conversation(*messages, producer_version="2.1"))["agent"]
    assert agent == {"name": "claude-code", "version": "2.1", "model_name": "big"}
    assert to_atif(conversation())["agent"] == {"name": "claude-code", "version": "unknown"}


def test_tool_results_are_observations_on_the_step_that_made_the_call() -> None:
    """Calls carry object arguments; results pair by source_call_id; errors are marked."""
    calls = (
        ToolCall(id="t1", name="Bash", input={"command": "ls"}, output="a.py"),
        ToolCall(id="t2", name="Read", input={"path": "x"}, output="no such file", is_error=True),
        ToolCall(id="t3", name="Wait", input={}),
    )
    [step] = to_atif(conversation(Message(id="a", role="assistant", tool_calls=calls)))["steps"]
    assert step["tool_calls"] == [
        {"tool_call_id": "t1", "function_name": "Bash", "arguments": {"command": "ls"}},
        {"tool_call_id": "t2", "function_name": "Read", "arguments": {"path": "x"}},
        {"tool_call_id": "t3", "function_name": "Wait", "arguments": {}},
    ]
    assert step["observation"]["results"] == [
        {"source_call_id": "t1", "content": "a.py"},
        {"source_call_id": "t2", "content": "no such file", "extra": {"is_error": True}},
    ]


def test_calls_without_ids_or_object_input_are_adapted_and_counted() -> None:
    """A call with no id gets one; a non-object input is wrapped; both are counted."""
    calls = (
        ToolCall(id=None, name="apply_patch", input="*** Begin Patch", output="ok"),
        ToolCall(id=None, name="noop", input=None, result={"structured": True}, output="done"),
    )
    trajectory = to_atif(conversation(Message(id="m7", role="assistant", tool_calls=calls)))
    [step] = trajectory["steps"]
    assert [c["tool_call_id"] for c in step["tool_calls"]] == ["m7.call1", "m7.call2"]
    assert [c["arguments"] for c in step["tool_calls"]] == [{"input": "*** Begin Patch"}, {}]
    assert [r["source_call_id"] for r in step["observation"]["results"]] == ["m7.call1", "m7.call2"]
    counts = trajectory["extra"]["chatparse"]
    assert counts["adapted"]["tool_call_ids_made"] == 2
    assert counts["adapted"]["tool_inputs_wrapped"] == 2
    assert counts["not_exported"]["structured_tool_results"] == 1


def test_metrics_include_cached_prompt_tokens_and_keep_cache_writes_in_extra() -> None:
    """prompt_tokens is our input (cached included); cache writes and reasoning go in extra."""
    usage = Usage(
        input_tokens=1000,
        output_tokens=300,
        cache_read_tokens=600,
        cache_write_tokens=200,
        reasoning_tokens=100,
    )
    trajectory = to_atif(conversation(Message(id="a", role="assistant", usage=usage)))
    assert trajectory["steps"][0]["metrics"] == {
        "prompt_tokens": 1000,
        "completion_tokens": 300,
        "cached_tokens": 600,
        "extra": {"cache_creation_input_tokens": 200, "reasoning_tokens": 100},
    }


def test_final_metrics_add_up_the_counted_usage_only() -> None:
    """A duplicate copy of a response keeps its numbers in extra, outside every total."""
    counted = Usage(input_tokens=10, output_tokens=2, cache_read_tokens=4, dedup_key="k1")
    copy = Usage(
        input_tokens=10, output_tokens=2, cache_read_tokens=4, dedup_key="k1", counted=False
    )
    other = Usage(input_tokens=30, output_tokens=5, dedup_key="k2")
    messages = [
        Message(id="a1", role="assistant", usage=counted),
        Message(id="a2", role="assistant", usage=copy, is_sidechain=True),
        Message(id="a3", role="assistant", usage=other),
    ]
    trajectory = to_atif(conversation(*messages))
    replayed = trajectory["steps"][1]
    assert "metrics" not in replayed
    assert replayed["extra"]["uncounted_metrics"]["prompt_tokens"] == 10
    assert replayed["extra"]["usage_dedup_key"] == "k1"
    assert replayed["extra"]["is_sidechain"] is True
    assert trajectory["final_metrics"] == {
        "total_prompt_tokens": 40,
        "total_completion_tokens": 7,
        "total_cached_tokens": 4,
        "total_steps": 3,
    }


def test_a_compaction_summary_is_a_copied_context_system_step() -> None:
    """The summary replaces the context: a system step marked as ATIF's convention says."""
    summary = Message(id="cs", role="user", kind="compaction_summary", text="So far: ...")
    trajectory = to_atif(conversation(summary))
    [step] = trajectory["steps"]
    assert step["source"] == "system"
    assert step["is_copied_context"] is True
    assert step["extra"]["context_management"] == {"type": "compaction", "boundary": "replace"}
    assert step["extra"]["role"] == "user"
    assert step["extra"]["kind"] == "compaction_summary"
    assert trajectory["extra"]["chatparse"]["adapted"]["steps_made_system"] == 1


def test_what_only_agent_steps_may_hold_moves_to_extra_on_other_steps() -> None:
    """Reasoning on a user message cannot be reasoning_content there: it is kept in extra."""
    trajectory = to_atif(conversation(Message(id="u", role="user", text="hi", thinking="hmm")))
    [step] = trajectory["steps"]
    assert "reasoning_content" not in step
    assert step["extra"]["agent_fields"] == {"reasoning_content": "hmm"}
    assert trajectory["extra"]["chatparse"]["adapted"]["agent_fields_in_extra"] == 1


def test_subagents_are_embedded_with_unique_trajectory_ids() -> None:
    """Each sub-agent is a trajectory of its own, numbered from 1, its id unique among siblings."""
    child = conversation(Message(id="g1", role="user", text="find it"), id="agent-1")
    twin = conversation(Message(id="g1", role="user", text="again"), id="agent-1")
    trajectory = to_atif(conversation(Message(id="u", role="user"), subagents=(child, twin)))
    embedded = trajectory["subagent_trajectories"]
    assert [t["trajectory_id"] for t in embedded] == ["agent-1", "agent-1#2"]
    assert all("session_id" not in t for t in embedded)
    assert [t["steps"][0]["message"] for t in embedded] == ["find it", "again"]
    assert all(t["steps"][0]["step_id"] == 1 for t in embedded)


def test_an_empty_conversation_has_one_placeholder_step_and_says_so() -> None:
    """ATIF needs a step; the placeholder is marked, counted and left out of total_steps."""
    trajectory = to_atif(conversation())
    assert trajectory["steps"] == [
        {"step_id": 1, "source": "system", "message": "", "extra": {"placeholder": True}}
    ]
    assert trajectory["final_metrics"] == {"total_steps": 0}
    assert "placeholder" in trajectory["notes"]
    assert trajectory["extra"]["chatparse"]["adapted"]["placeholder_steps"] == 1


def test_conversation_fields_and_unknown_records_are_in_the_extra() -> None:
    """What ATIF has no field for is kept; unknown raw records are counted as not exported."""
    diagnostics = Diagnostics(
        records_seen=2, unknown=(UnknownRecord(where="line 2", type="x", raw="{}"),)
    )
    image = ImageRef(media_type="image/png", byte_size=70)
    trajectory = to_atif(
        conversation(
            Message(id="u", role="user", images=(image,), timestamp_synthesized=True),
            title="Fix it",
            git_branch="main",
            created_at=at(1),
            diagnostics=diagnostics,
        )
    )
    extra = trajectory["extra"]["chatparse"]
    assert extra["title"] == "Fix it"
    assert extra["git_branch"] == "main"
    assert extra["created_at"] == "2025-05-01T10:01:00Z"
    assert extra["diagnostics"]["unknown"] == 1
    assert extra["not_exported"]["unknown_records"] == 1
    step_extra = trajectory["steps"][0]["extra"]
    assert step_extra["images"] == [{"media_type": "image/png", "byte_size": 70}]
    assert step_extra["timestamp_synthesized"] is True


def test_main_thread_leaves_abandoned_branches_out() -> None:
    """With main_thread=True only the line from the root to the newest leaf is exported."""
    messages = [
        Message(id="u1", role="user", text="first", timestamp=at(0)),
        Message(id="a1", role="assistant", parent_id="u1", text="old answer", timestamp=at(1)),
        Message(id="a2", role="assistant", parent_id="u1", text="new answer", timestamp=at(2)),
    ]
    every = to_atif(conversation(*messages))
    main = to_atif(conversation(*messages), main_thread=True)
    assert [s["message"] for s in every["steps"]] == ["first", "old answer", "new answer"]
    assert [s["message"] for s in main["steps"]] == ["first", "new answer"]
    assert [s["step_id"] for s in main["steps"]] == [1, 2]
