"""Dask and Ray give the same conversations as ``iter_conversations``, on real local clusters.

Run where the extras are installed (``nox -s extras``); skipped with the reason elsewhere.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path

import pytest

import chatparse
from chatparse import Host, ParsedConversation
from chatparse.errors import MissingExtraError

DEMO = Path(str(files("chatparse").joinpath("_demo", "home")))
REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "codex"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the demo home (one conversation or more per built-in source)."""
    target = tmp_path_factory.mktemp("home")
    shutil.copytree(DEMO, target, dirs_exist_ok=True)
    return target


def host_of(home: Path) -> Host:
    return Host(home=home, env={}, platform="linux")


def by_key(conversations: list[ParsedConversation]) -> dict[tuple[str, str], ParsedConversation]:
    return {(c.source, c.id): c for c in conversations}


def expected(home: Path) -> dict[tuple[str, str], ParsedConversation]:
    return by_key(list(chatparse.iter_conversations(host_of(home))))


@pytest.fixture(scope="module")
def dask_client() -> Iterator[object]:
    distributed = pytest.importorskip("dask.distributed", reason="the dask extra is not installed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@pytest.mark.usefixtures("dask_client")
def test_dask_bag_of_a_home_on_a_process_cluster(home: Path) -> None:
    from chatparse.engines import dask_bag  # noqa: PLC0415 -- after the skip

    bag = dask_bag(host_of(home), partition_size=2)
    got = by_key(bag.compute())
    assert got == expected(home)
    assert {source for source, _id in got} == set(chatparse.adapter_names()) - {"toy"}


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")
@pytest.mark.usefixtures("dask_client")
def test_dask_bag_of_gathered_paths() -> None:
    from chatparse.engines import dask_bag  # noqa: PLC0415 -- after the skip

    paths = sorted(CORPUS.rglob("*.jsonl"))
    got = by_key(dask_bag(paths=paths, sources="codex").compute())
    want = by_key([c for p in paths for c in chatparse.parse_path(p, source="codex")])
    assert got == want
    assert len(got) >= 3


def test_paths_and_host_together_are_refused(home: Path) -> None:
    pytest.importorskip("dask.bag", reason="the dask extra is not installed")
    from chatparse.engines import dask_bag  # noqa: PLC0415 -- after the skip

    with pytest.raises(ValueError, match="not both"):
        dask_bag(host_of(home), paths=[home])
    with pytest.raises(ValueError, match="at most one adapter"):
        dask_bag(paths=[home], sources=["codex", "cursor"])


@pytest.fixture(scope="module")
def ray_session() -> Iterator[object]:
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    pytest.importorskip("pyarrow", reason="the arrow extra is not installed")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


# Ray warns about its own deprecated settings from inside ray.data: not ours to fix.
@pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.*")
@pytest.mark.usefixtures("ray_session")
@pytest.mark.parametrize("table", ["conversations", "messages", "usage"])
def test_ray_dataset_rows_follow_the_arrow_schema(home: Path, table: str) -> None:
    from chatparse.engines import ray_dataset  # noqa: PLC0415 -- after the skip
    from chatparse.interop import to_arrow  # noqa: PLC0415 -- after the skip

    dataset = ray_dataset(host_of(home), table=table, batch_size=2)
    got = sorted(dataset.take_all(), key=repr)
    want = to_arrow(expected(home).values())[table].to_pylist()
    assert got == sorted(want, key=repr)


def test_a_missing_engine_names_its_extra(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    import sys  # noqa: PLC0415 -- local to the monkeypatching

    from chatparse.engines import dask_bag  # noqa: PLC0415 -- the engine itself is not imported

    monkeypatch.setitem(sys.modules, "dask.bag", None)
    with pytest.raises(MissingExtraError, match=r"chatparse\[dask\]"):
        dask_bag(host_of(home))
