"""``chatparse usage`` and the interop export formats (atif, openai, parquet, otel).

All on the demo home.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import attrs
import pytest

import chatparse
from chatparse import Host, UsageRow, _cli_usage, cli, redaction
from chatparse.usage import REPORT_BY, UNKNOWN_KEY

DEMO_HOME = Path(chatparse.__file__).parent / "_demo" / "home"


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def demo_rows(by: str) -> tuple[UsageRow, ...]:
    host = Host(home=DEMO_HOME, env={}, platform="linux")
    return chatparse.usage_report(chatparse.iter_conversations(host), by=by)  # type: ignore[arg-type]


def test_usage_json_has_the_rows_fields(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = call(capsys, "--demo", "usage", "--by", "source", "--json")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows == [attrs.asdict(row) for row in demo_rows("source")]
    assert {row["key"] for row in rows} >= {"claude-code", "codex"}


def test_usage_table_is_one_line_per_group(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = call(capsys, "--demo", "usage", "--by", "model")
    assert code == 0
    header, *lines = out.splitlines()
    assert header.split()[:3] == ["model", "input", "output"]
    keys = [row.key for row in demo_rows("model")]
    assert len(lines) == len(keys)
    for line, key in zip(lines, keys, strict=True):  # a model's name may hold spaces
        assert line.startswith(f"{key} ")


def test_usage_with_workers_gives_the_same_report(capsys: pytest.CaptureFixture[str]) -> None:
    _code, one, _err = call(capsys, "--demo", "usage", "--by", "month", "--json")
    _code, two, _err = call(capsys, "--demo", "usage", "--by", "month", "--json", "--workers", "2")
    assert two == one


def test_usage_costs_from_a_price_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(
        json.dumps(
            {
                "gpt-5-codex": {
                    "input_cost_per_token": 1e-6,
                    "output_cost_per_token": 1e-5,
                    "cache_read_input_token_cost": 1e-7,
                }
            }
        ),
        encoding="utf-8",
    )
    code, out, err = call(
        capsys, "--demo", "usage", "--by", "model", "--prices", str(prices), "--json"
    )
    assert code == 0
    rows = {row["key"]: row for row in map(json.loads, out.splitlines())}
    codex = rows["gpt-5-codex"]
    assert codex["cost"] == pytest.approx(
        ((codex["input_tokens"] - codex["cache_read_tokens"]) * 1e-6)
        + codex["cache_read_tokens"] * 1e-7
        + codex["output_tokens"] * 1e-5
    )
    unpriced = [key for key, row in rows.items() if row["unpriced_responses"]]
    assert unpriced
    assert all(rows[key]["cost"] is None for key in unpriced)
    for key in unpriced:  # named, never priced at zero
        assert (key if key != UNKNOWN_KEY else "(no model recorded)") in err


def test_a_bad_price_file_exits_2_naming_file_and_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text('{\n  "m": {\n    "input_cost_per_token": ,\n  }\n}\n', encoding="utf-8")
    code, _out, err = call(capsys, "--demo", "usage", "--prices", str(prices))
    assert code == 2
    assert f"{prices}, line 3" in err


@pytest.mark.parametrize("day", ["2026-13-01", "yesterday"])
def test_a_bad_day_is_a_usage_error(capsys: pytest.CaptureFixture[str], day: str) -> None:
    with pytest.raises(SystemExit) as caught:
        cli.main(["--demo", "usage", "--since", day])
    assert caught.value.code == 2
    assert "YYYY-MM-DD" in capsys.readouterr().err


def test_since_and_until(capsys: pytest.CaptureFixture[str]) -> None:
    _code, everything, _err = call(capsys, "--demo", "usage", "--by", "day", "--utc", "--json")
    days = [json.loads(line)["key"] for line in everything.splitlines()]
    first = days[0]
    _code, out, _err = call(
        capsys, "--demo", "usage", "--by", "day", "--utc", "--json", "--until", first
    )
    assert [json.loads(line)["key"] for line in out.splitlines()] == [first]
    _code, out, _err = call(capsys, "--demo", "usage", "--utc", "--since", "2999-01-01", "--json")
    assert out == ""


@pytest.mark.parametrize(("fmt", "suffix"), [("atif", ".atif.json"), ("openai", ".openai.json")])
def test_export_atif_and_openai_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str, suffix: str
) -> None:
    code, _out, _err = call(capsys, "--demo", "export", "--out", str(tmp_path), "--format", fmt)
    assert code == 0
    files = sorted(tmp_path.rglob(f"*{suffix}"))
    host = Host(home=DEMO_HOME, env={}, platform="linux")
    assert len(files) == sum(1 for _ in chatparse.scan(host))
    for path in files:
        document = json.loads(path.read_text(encoding="utf-8"))
        assert ("steps" in document) if fmt == "atif" else ("messages" in document)


def test_export_parquet_writes_the_four_tables(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pq = pytest.importorskip("pyarrow.parquet", reason="the arrow extra is not installed")
    code, out, _err = call(
        capsys, "--demo", "export", "--out", str(tmp_path), "--format", "parquet", "--json"
    )
    assert code == 0
    summary = json.loads(out)
    assert sorted(Path(f).name for f in summary["files"]) == [
        "conversations.parquet",
        "messages.parquet",
        "tool_calls.parquet",
        "usage.parquet",
    ]
    assert pq.read_table(tmp_path / "messages.parquet").num_rows > 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--format", "otel"], "needs --endpoint"),
        (["--format", "parquet", "--out", "x", "--state", "s.json"], "no --state"),
        (["--format", "jsonl"], "needs --out"),
        (["--format", "json", "--workers", "-2"], "not a number of processes"),
    ],
)
def test_export_usage_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    try:
        code = cli.main(["--demo", "export", *argv])
    except SystemExit as exit_:  # argparse's own errors
        code = int(exit_.code or 0)
    assert code == 2
    assert message in capsys.readouterr().err


def written(folder: Path) -> dict[Path, bytes]:
    """Every file an export wrote, by its path in the folder."""
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("fmt", ["json", "jsonl", "markdown"])
def test_export_with_workers_writes_the_same_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str
) -> None:
    """Rendered in the workers, written here: the same bytes as one process writes."""
    for name, extra in (("one", []), ("two", ["--workers", "2"])):
        code, _out, _err = call(
            capsys, "--demo", "export", "--out", str(tmp_path / name), "--format", fmt, *extra
        )
        assert code == 0
    one = written(tmp_path / "one")
    assert one
    assert written(tmp_path / "two") == one


def test_usage_only_keeps_every_report_the_same() -> None:
    """What a usage worker sends back gives the same rows, by every grouping, as the whole."""
    host = Host(home=DEMO_HOME, env={}, platform="linux")
    conversations = list(chatparse.iter_conversations(host))
    reduced = [_cli_usage.usage_only(conversation) for conversation in conversations]
    assert sum(len(c.messages) for c in reduced) < sum(len(c.messages) for c in conversations)
    for by in REPORT_BY:
        rows = chatparse.usage_report(conversations, by=by)
        assert rows
        assert chatparse.usage_report(reduced, by=by) == rows, by


TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"


@pytest.fixture
def secret_home(tmp_path: Path) -> Path:
    """The demo home with a GitHub token pasted into a Claude Code message."""
    home = tmp_path / "home"
    shutil.copytree(DEMO_HOME, home)
    [session] = home.glob(".claude/projects/*/*.jsonl")
    text = session.read_text(encoding="utf-8")
    session.write_text(
        text.replace("Running both in parallel.", f"Running both with {TOKEN} now."),
        encoding="utf-8",
    )
    return home


def test_parse_redact(capsys: pytest.CaptureFixture[str], secret_home: Path) -> None:
    [session] = secret_home.glob(".claude/projects/*/*.jsonl")
    _code, plain, _err = call(capsys, "--home", str(secret_home), "parse", str(session))
    assert TOKEN in plain
    code, out, _err = call(capsys, "--home", str(secret_home), "parse", str(session), "--redact")
    assert code == 0
    assert TOKEN not in out
    assert "Running both with [REDACTED:" in out
    assert json.loads(out)["diagnostics"]["redactions"]


def test_export_redact_and_back_rewrites(
    capsys: pytest.CaptureFixture[str], secret_home: Path, tmp_path: Path
) -> None:
    """A conversation exported plain is exported again when asked redacted, and back."""
    out_dir, state = tmp_path / "out", tmp_path / "state.json"
    base = ["--home", str(secret_home), "--platform", "linux", "export", "--out", str(out_dir)]
    base += ["--format", "json", "--state", str(state)]

    def exported_text() -> str:
        return "".join(p.read_text(encoding="utf-8") for p in out_dir.rglob("*.json"))

    call(capsys, *base)
    assert TOKEN in exported_text()
    code, _out, _err = call(capsys, *base, "--redact")
    assert code == 0
    assert TOKEN not in exported_text()
    call(capsys, *base)
    assert TOKEN in exported_text()


def test_export_redacts_in_the_workers(
    capsys: pytest.CaptureFixture[str], secret_home: Path, tmp_path: Path
) -> None:
    """With --workers, each worker redacts before it renders: no secret reaches the parent."""
    base = ["--home", str(secret_home), "--platform", "linux", "export", "--format", "jsonl"]
    for name, extra in (("one", []), ("two", ["--workers", "2"])):
        code, _out, _err = call(capsys, *base, "--out", str(tmp_path / name), "--redact", *extra)
        assert code == 0
    one = written(tmp_path / "one")
    assert b"Running both with [REDACTED:" in b"".join(one.values())
    assert TOKEN.encode() not in b"".join(one.values())
    assert written(tmp_path / "two") == one


def test_a_redaction_that_fails_stops_the_export(
    capsys: pytest.CaptureFixture[str],
    secret_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Never written without the redaction asked for: the run stops, the output stays as was."""
    out_dir = tmp_path / "out"
    base = ["--home", str(secret_home), "--platform", "linux", "export", "--out", str(out_dir)]
    call(capsys, *base, "--format", "jsonl")
    before = written(out_dir)

    def broken(_conversation: object, _redactor: object) -> object:
        raise OSError("rules file gone")

    monkeypatch.setattr(redaction, "redact", broken)
    code, _out, err = call(capsys, *base, "--format", "jsonl", "--redact")
    assert code == 2
    assert err.startswith("chatparse: error: redacting ")
    assert "OSError: rules file gone" in err
    assert "the export stopped" in err
    assert written(out_dir) == before


def test_an_unknown_redactor_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], secret_home: Path
) -> None:
    [session] = secret_home.glob(".claude/projects/*/*.jsonl")
    code, _out, err = call(capsys, "parse", str(session), "--redact", "--redactor", "nope")
    assert code == 2
    assert "no chatparse redactor is named 'nope'" in err
