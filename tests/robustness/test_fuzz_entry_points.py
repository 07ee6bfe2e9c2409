"""Property tests through the doors users come in by: ``parse_path`` and the command line.

The record fuzzing (``test_fuzz_records``) drives each adapter directly. Here the same damaged
files go through :func:`chatparse.parse_path`, which picks the adapter by sniffing the damaged
bytes, and through ``chatparse parse``, which also renders the result: both must end in
conversations that keep every invariant or in one of chatparse's own errors, never a traceback.
"""

from __future__ import annotations

import io
import json
import shutil
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chatparse
from chatparse import cli
from chatparse.errors import SourceUnavailableError, UnsupportedInputError
from robustness._mutate import mutate_document, mutate_jsonl
from robustness._support import ADAPTERS, budget, cases_of, check_all

_SUFFIXES = (".jsonl", ".json")


def _files(adapter: str) -> list[tuple[Path, str]]:
    """Every JSON and JSON Lines file of the adapter's cases: (case home, relative path)."""
    return [
        (case.home_dir, path.relative_to(case.home_dir).as_posix())
        for case in cases_of(adapter)
        for path in sorted(case.home_dir.rglob("*"))
        if path.is_file() and path.name.endswith(_SUFFIXES)
    ]


def _damaged_copy(data: st.DataObject, adapter: str, workdir: Path) -> Path:
    home_dir, relative = data.draw(st.sampled_from(_files(adapter)), label="file")
    home = workdir / "home"
    shutil.copytree(home_dir, home, symlinks=True)
    path = home / relative
    mutate = mutate_jsonl if relative.endswith(".jsonl") else mutate_document
    path.write_bytes(mutate(data, path.read_bytes()))
    return path


_FUZZED = [adapter for adapter in ADAPTERS if _files(adapter)]


@pytest.mark.parametrize("adapter", _FUZZED)
@settings(
    max_examples=budget(10),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_parse_path_on_a_damaged_file_parses_or_says_why(adapter: str, data: st.DataObject) -> None:
    """Sniffed by every adapter, parsed by the surest: balanced and round-tripping, or refused."""
    with tempfile.TemporaryDirectory(prefix="chatparse-fuzz-path-") as tmp:
        path = _damaged_copy(data, adapter, Path(tmp))
        refusal: Exception | None = None
        try:
            conversations = chatparse.parse_path(path)
        except (SourceUnavailableError, UnsupportedInputError) as exc:
            refusal, conversations = exc, []
        assert refusal is None or str(path) in str(refusal)
        check_all(conversations)


@pytest.mark.parametrize("adapter", _FUZZED)
@settings(
    max_examples=budget(10),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data(), output=st.sampled_from(["json", "markdown"]))
def test_the_command_line_on_a_damaged_file_prints_a_result_or_an_error(
    adapter: str, data: st.DataObject, output: str
) -> None:
    """``chatparse parse`` ends with output (exit 0, or 1 saying what was unreadable) or an error.

    An error is exit 2 with one ``chatparse: error:`` line.
    """
    with tempfile.TemporaryDirectory(prefix="chatparse-fuzz-cli-") as tmp:
        path = _damaged_copy(data, adapter, Path(tmp))
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(["parse", str(path), "--format", output])
        assert "Traceback" not in err.getvalue()
        if code in {cli.EXIT_OK, cli.EXIT_FAILED}:
            # 1: a file whose every record is malformed is parsed, and said to be unreadable.
            assert out.getvalue() or "no conversation in" in err.getvalue()
            if output == "json":
                json.loads(out.getvalue())
            if code == cli.EXIT_FAILED:
                assert err.getvalue().startswith("chatparse: "), err.getvalue()
        else:
            assert code == cli.EXIT_USAGE, err.getvalue()
            assert err.getvalue().startswith("chatparse: error: "), err.getvalue()
