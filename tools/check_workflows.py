"""Check the GitHub workflows beyond what zizmor audits: they parse, and they test what we claim.

``nox -s workflows`` runs zizmor, then this. Each ``.github/workflows/*.yml`` must be a mapping with
triggers and jobs, every job must say where it runs and what it does, every action must be pinned
to a full commit SHA with its version in a comment (``uses: owner/repo@<40 hex>  # v1.2.3``), and
the CI test matrix must list exactly the Python versions pyproject.toml's classifiers claim.
Prints each problem and exits 1 if there is any.
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = ROOT / ".github" / "workflows"
CI_WORKFLOW = WORKFLOWS / "ci.yml"

_PINNED = re.compile(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}")
_USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<ref>\S+)(?P<rest>.*)$", re.MULTILINE)
_VERSION_COMMENT = re.compile(r"\s+#\s*v\d+(\.\d+)*\s*$")
_CLASSIFIER = re.compile(r"Programming Language :: Python :: (3\.\d+)$")


def _job_problems(name: str, job: Any) -> Iterator[str]:
    if not isinstance(job, dict):
        yield f"job {name!r} is not a mapping"
        return
    if "uses" in job:  # a reusable workflow runs elsewhere and brings its own steps
        return
    if "runs-on" not in job:
        yield f"job {name!r} has no runs-on"
    steps = job.get("steps")
    if not isinstance(steps, list) or not steps:
        yield f"job {name!r} has no steps"
        return
    for index, step in enumerate(steps):
        if not isinstance(step, dict) or not ({"uses", "run"} & step.keys()):
            yield f"job {name!r} step {index + 1} neither uses an action nor runs a command"


def _uses_problems(text: str) -> Iterator[str]:
    for match in _USES_LINE.finditer(text):
        ref = match["ref"]
        if ref.startswith(("./", "docker://")):
            continue
        if not _PINNED.fullmatch(ref):
            yield f"{ref} is not pinned to a full commit SHA"
        elif not _VERSION_COMMENT.fullmatch(match["rest"]):
            yield f"{ref} has no '# vX.Y.Z' comment saying which release the SHA is"


def workflow_problems(path: Path) -> list[str]:
    """Return what is wrong with the workflow at ``path``; empty when nothing is."""
    text = path.read_text(encoding="utf-8")
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        return [f"does not parse: {exc}"]
    if not isinstance(document, dict):
        return ["is not a mapping"]
    problems: list[str] = []
    # YAML 1.1 reads the key `on` as the boolean True; GitHub reads it as "on".
    if "on" not in document and True not in document:
        problems.append("has no 'on' triggers")
    jobs = document.get("jobs")
    if not isinstance(jobs, dict) or not jobs:
        problems.append("has no jobs")
    else:
        for name, job in jobs.items():
            problems.extend(_job_problems(name, job))
    problems.extend(_uses_problems(text))
    return problems


def claimed_pythons(pyproject: dict[str, Any]) -> list[str]:
    """The ``3.x`` versions named by pyproject's "Programming Language :: Python" classifiers."""
    found = (_CLASSIFIER.match(line) for line in pyproject["project"]["classifiers"])
    return [match[1] for match in found if match]


def matrix_problems(ci: dict[str, Any], claimed: list[str]) -> list[str]:
    """Return why the CI ``tests`` matrix does not test exactly ``claimed``, if it does not."""
    matrix = ci.get("jobs", {}).get("tests", {}).get("strategy", {}).get("matrix", {})
    tested = [str(version) for version in matrix.get("python", [])]
    if tested != claimed:
        return [f"the tests matrix runs Python {tested}, the classifiers claim {claimed}"]
    return []


def main() -> int:
    """Print every problem of every workflow; return 1 if there is one."""
    paths = sorted(WORKFLOWS.glob("*.yml"))
    problems = [
        f"{path.relative_to(ROOT)}: {problem}"
        for path in paths
        for problem in workflow_problems(path)
    ]
    if CI_WORKFLOW.is_file():
        pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
        ci = yaml.safe_load(CI_WORKFLOW.read_text(encoding="utf-8"))
        problems += [f"ci.yml: {p}" for p in matrix_problems(ci, claimed_pythons(pyproject))]
    else:
        problems.append(f"no {CI_WORKFLOW.relative_to(ROOT)}")
    for problem in problems:
        print(problem)
    print(f"{len(paths)} workflows checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
