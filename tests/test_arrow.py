"""Arrow tables and Parquet files of conversations.

Fixed schemas, every row of every golden, and files read back by pyarrow and DuckDB.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import chatparse
from chatparse import ParsedConversation
from chatparse.errors import MissingExtraError

pa = pytest.importorskip("pyarrow", reason="the arrow extra is not installed")
pq = pytest.importorskip("pyarrow.parquet")

from chatparse.interop import ARROW_SCHEMAS, to_arrow, write_parquet  # noqa: E402 -- after the skip
from chatparse.interop.parquet import COMPRESSIONS  # noqa: E402 -- after the skip

REPO = Path(__file__).resolve().parents[1]
GOLDENS = sorted(REPO.glob("fixtures/*/*/expected.json"))


def golden_conversations() -> list[ParsedConversation]:
    return [
        chatparse.from_dict(conversation)
        for golden in GOLDENS
        for conversation in json.loads(golden.read_text(encoding="utf-8"))["conversations"]
    ]


def flatten(conversations: list[ParsedConversation]) -> list[ParsedConversation]:
    out: list[ParsedConversation] = []
    for conversation in conversations:
        out += [conversation, *flatten(list(conversation.subagents))]
    return out


def test_every_row_of_every_golden_is_in_its_table() -> None:
    conversations = golden_conversations()
    tables = to_arrow(conversations)
    every = flatten(conversations)
    messages = [m for c in every for m in c.messages]
    assert tables["conversations"].num_rows == len(every)
    assert tables["messages"].num_rows == len(messages)
    assert tables["tool_calls"].num_rows == sum(len(m.tool_calls) for m in messages)
    assert tables["usage"].num_rows == sum(m.usage is not None for m in messages)
    for name, table in tables.items():
        assert table.schema.equals(ARROW_SCHEMAS[name]), name
    counted = [m.usage.input_tokens or 0 for m in messages if m.usage and m.usage.counted]
    column = tables["usage"].filter(tables["usage"]["counted"])["input_tokens"]
    assert sum(v or 0 for v in column.to_pylist()) == sum(counted)


def test_subagents_name_their_parent_and_text_is_large() -> None:
    conversations = [c for c in golden_conversations() if c.subagents]
    assert conversations, "the goldens include sub-agents"
    table = to_arrow(conversations)["conversations"]
    parents = dict(
        zip(
            table["conversation_id"].to_pylist(),
            table["parent_conversation_id"].to_pylist(),
            strict=True,
        )
    )
    for conversation in conversations:
        assert parents[conversation.id] is None
        for subagent in conversation.subagents:
            assert parents[subagent.id] == conversation.id
    assert ARROW_SCHEMAS["messages"].field("text").type == pa.large_string()


def test_tool_inputs_are_json_text() -> None:
    tables = to_arrow(golden_conversations())
    calls = tables["tool_calls"].to_pylist()
    assert calls
    for call in calls:
        json.loads(call["input_json"])


def test_no_conversations_give_empty_tables_in_the_schemas() -> None:
    tables = to_arrow([])
    assert {name: t.num_rows for name, t in tables.items()} == dict.fromkeys(ARROW_SCHEMAS, 0)


def test_parquet_reads_back_with_pyarrow_and_duckdb(tmp_path: Path) -> None:
    conversations = golden_conversations()
    paths = write_parquet(iter(conversations), tmp_path / "out", batch=7)
    expected = to_arrow(conversations)
    for name, path in paths.items():
        table = pq.read_table(path)
        assert table.schema.equals(ARROW_SCHEMAS[name])
        assert table.to_pylist() == expected[name].to_pylist()
    duckdb = pytest.importorskip("duckdb")
    files = [str(paths["messages"])]
    [(rows,)] = duckdb.execute("SELECT count(*) FROM read_parquet(?)", files).fetchall()
    assert rows == expected["messages"].num_rows
    joined = duckdb.execute(
        "SELECT count(*) FROM read_parquet(?) u "
        "JOIN read_parquet(?) m USING (source, conversation_id, message_id)",
        [str(paths["usage"]), str(paths["messages"])],
    ).fetchall()
    assert joined == [(expected["usage"].num_rows,)]


@pytest.mark.parametrize("codec", COMPRESSIONS)
def test_every_codec_reads_back_the_same_rows(tmp_path: Path, codec: str) -> None:
    conversations = golden_conversations()
    paths = write_parquet(conversations, tmp_path, compression=codec)
    expected = to_arrow(conversations)
    for name, path in paths.items():
        metadata = pq.ParquetFile(path).metadata
        if metadata.num_row_groups:
            written = metadata.row_group(0).column(0).compression
            assert written == ("UNCOMPRESSED" if codec == "none" else codec.upper())
        assert pq.read_table(path).to_pylist() == expected[name].to_pylist()


def test_an_unknown_codec_is_refused_before_any_file_is_written(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="compression must be one of snappy, zstd"):
        write_parquet([], tmp_path / "out", compression="rar")
    assert not (tmp_path / "out").exists()


def test_batch_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="batch"):
        write_parquet([], tmp_path, batch=0)


def test_a_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from chatparse import interop  # noqa: PLC0415 -- reloaded state is the point

    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.delitem(vars(interop), "to_arrow", raising=False)
    with pytest.raises(MissingExtraError, match=r"chatparse\[arrow\]"):
        interop.to_arrow  # noqa: B018 -- the attribute access is what imports


def test_the_cli_writes_with_the_codec_asked_for_and_refuses_others(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from chatparse.cli import main  # noqa: PLC0415 -- the command line under test

    args = ["--demo", "export", "--format", "parquet", "--out", str(tmp_path)]
    assert main([*args, "--compression", "zstd"]) == 0
    metadata = pq.ParquetFile(tmp_path / "messages.parquet").metadata
    assert metadata.row_group(0).column(0).compression == "ZSTD"
    assert main([*args, "--compression", "rar"]) == 2
    assert "compression must be one of" in capsys.readouterr().err
