"""The documents agree with the code and with each other, and work from a clone.

- the model card and the benchmarks README stay short;
- every relative link of a document names a file of the repository, and no document names a path outside it;
- what each rule system scores: README's table, ``docs/rules/*.md`` and ``GET /v1/rules`` list the same items;
- the figures README repeats are the ones written where they were measured (model card, benchmarks);
- the shell examples of README and the docs run as written, where they need no network, data or long work.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from mjlens.scoring.engine import catalog

REPO = Path(__file__).resolve().parents[1]

#: Folders of the working copy that are not the project's own (environments, builds, training runs).
NOT_OURS = {".venv", "build", "dist", ".git", "node_modules", "runs"}


def _files(pattern: str) -> list[Path]:
    """The repository's files matching a glob, generated and vendored folders left out, and any virtual environment
    made in the working copy, whatever its name."""
    tops = [p for p in REPO.iterdir() if p.name not in NOT_OURS and not p.name.endswith(".egg-info")
            and not (p / "pyvenv.cfg").is_file()]
    return sorted(f for top in tops for f in ([top] if top.is_file() else top.rglob(pattern)) if f.match(pattern))


#: The documents a reader of the repository reads.
DOCS = _files("*.md")
SHORT_DOCS = {"models/README.md": 15_000, "benchmarks/README.md": 15_000}
RULE_DOCS = {"mcr": "docs/rules/mcr.md", "taiwan": "docs/rules/taiwan.md", "cantonese": "docs/rules/cantonese.md",
             "riichi": "docs/rules/riichi.md"}
#: Where README's figures are written first.
FIGURE_SOURCES = ("models/README.md", "benchmarks/README.md", "docs/rules/mcr.md")


def read(rel: str) -> str:
    return (REPO / rel).read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    """The body of the ``## heading`` section."""
    start = text.index(f"## {heading}\n")
    end = text.find("\n## ", start + 3)
    return text[start:end if end >= 0 else len(text)]


@pytest.mark.parametrize("rel,limit", SHORT_DOCS.items())
def test_short_documents_stay_short(rel, limit):
    assert len(read(rel).encode()) < limit, f"{rel} is over {limit} bytes: move history to docs/experiments/"


LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_links_name_files_of_the_repository(doc):
    text = doc.read_text(encoding="utf-8")
    assert "../shared" not in text and "/work/" not in text, "a path outside the repository"
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (doc.parent / target.split("#")[0]).resolve()
        assert path.is_relative_to(REPO), f"{target} leaves the repository"
        assert path.exists(), f"{target} names no file"


def test_docs_experiments_are_indexed():
    index = read("docs/experiments/README.md")
    for path in (REPO / "docs" / "experiments").glob("*.md"):
        if path.name != "README.md":
            assert f"]({path.name})" in index, f"{path.name} is missing from docs/experiments/README.md"
            text = path.read_text(encoding="utf-8")
            assert "**Asked.**" in text and "**Decision.**" in text, path.name


def test_code_cites_experiment_files_that_exist():
    """A comment citing the decision behind a constant names a file of docs/experiments/ that is there."""
    for path in _files("*.py"):
        for cited in re.findall(r"docs/experiments/[\w-]+\.md", path.read_text(encoding="utf-8")):
            assert (REPO / cited).is_file(), f"{path.relative_to(REPO)} cites {cited}, which is not there"


def _item_counts() -> dict[str, int]:
    return {system["rules"]: len(system["items"]) for system in catalog()}


def _table_keys(text: str) -> set[str]:
    """The backquoted keys of the `key` column of every table of named items in a document (not the options')."""
    keys: set[str] = set()
    column = None
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else None
        if cells is None:
            column = None
        elif column is None and "key" in cells and {"name", "English"} & set(cells):
            column = cells.index("key")
        elif column is not None and column < len(cells):
            keys.update(re.findall(r"^`([a-z0-9_]+)`$", cells[column]))
    return keys


@pytest.mark.parametrize("rules", sorted(RULE_DOCS))
def test_rule_docs_list_the_items_rules_endpoint_lists(rules):
    system = next(s for s in catalog() if s["rules"] == rules)
    doc = read(RULE_DOCS[rules])
    assert _table_keys(doc) == {item["key"] for item in system["items"]}
    said = {int(n) for m in re.finditer(r"/v1/rules", doc)
            for n in re.findall(r"(\d+) items", doc[max(0, m.start() - 200):m.end() + 200])}
    assert said == {len(system["items"])}, f"{RULE_DOCS[rules]} says {said} items next to /v1/rules"


def test_readme_says_how_many_items_each_rule_system_scores():
    readme = read("README.md")
    for rules, count in _item_counts().items():
        row = next(line for line in readme.splitlines() if line.startswith("|") and f"| `{rules}` |" in line)
        assert re.findall(r"(\d+) items in `/v1/rules`", row) == [str(count)], row


def test_rules_endpoint_serves_the_catalog():
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from mjlens.api.service.app import Settings, create_app

    client = TestClient(create_app(Settings(model="no-such-model.onnx")))
    served = {s["rules"]: len(s["items"]) for s in client.get("/v1/rules").json()}
    assert served == _item_counts()


FIGURE = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})*(?:\.\d+)?(?:x\b|\s?(?:%|ms|µs|s\b))?")
#: Words of README's figures section that are not figures measured (sizes of the sets, cores, units).
NOT_MEASURED = {"2", "8", "26", "154", "296", "107", "106", "230", "100,000", "20,000"}


def test_readme_figures_are_those_of_their_sources():
    figures = section(read("README.md"), "How good it is today")
    sources = "\n".join(read(rel) for rel in FIGURE_SOURCES)
    missing = [f for f in FIGURE.findall(figures) if f not in NOT_MEASURED and f not in sources]
    assert not missing, f"figures in README not written in {FIGURE_SOURCES}: {missing}"


# --- shell examples ---------------------------------------------------------------------------------------------

#: Commands run as written: they need only the repository and the installed package, and take seconds.
RUN = ("mjlens score ", "mjlens waits ", "mjlens advise ", "mjlens photo examples/", "mjlens recognize examples/")
#: Commands not run, each for its reason.
NOT_RUN = {
    "pip ": "installs packages (network)",
    "python3 -m venv ": "makes an environment and installs into it (network), as .ci/run does afresh",
    "python -m pytest": "the test suite itself",
    "python -m build": "builds a wheel: a minute of work (.ci/wheel-check does it)",
    "mjlens serve": "a server that runs until stopped",
    "curl ": "needs a running server",
    "mjlens label ": "needs a folder of photos",
    "mjlens eval ": "needs the hk-photos data set",
    "mjlens train": "needs training data and hours",
    "mjlens synth": "writes a data set, minutes of work",
    "python ": "training, measuring or benchmark scripts: data and minutes",
    "MJLENS_SPIN=1 python": "a benchmark: data and minutes",
    "yolo ": "needs ultralytics and data",
    "DATA=": "sets a variable for the lines after it",
    "F=": "sets a variable for the lines after it",
    "git clone": "network",
    "pybabel ": "writes the message catalogue from the sources (docs/i18n.md)",
}
#: A fenced block with its info string (any: a ```text or ```json block must close before the next one opens).
FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```", re.S | re.M)
SHELL = {"bash", "sh", "shell", "console"}


def _commands(doc: Path) -> list[str]:
    """The commands of a document's shell blocks: those marked bash or sh, and unmarked ones that open on a command
    this file knows (an unmarked block is otherwise a listing). A quoted argument may run over several lines."""
    out = []
    known = RUN + tuple(NOT_RUN)
    for match in FENCE.finditer(doc.read_text(encoding="utf-8")):
        if match.group(1) and match.group(1) not in SHELL:
            continue
        lines = [re.sub(r"\s{2,}#.*$", "", line).strip() for line in match.group(2).replace("\\\n", " ").splitlines()]
        lines = [line for line in lines if line and not line.startswith("#")]
        if not lines or (not match.group(1) and not lines[0].startswith(known)):
            continue
        pending = ""
        for line in lines:
            pending = f"{pending} {line}".strip()
            try:
                shlex.split(pending)
            except ValueError:  # a quotation still open: the command goes on on the next line
                continue
            out.append(pending)
            pending = ""
    return out


def _reason_not_run(command: str) -> str | None:
    """Why an example is not run; None for one that is."""
    why = next((why for prefix, why in NOT_RUN.items() if command.startswith(prefix)), None)
    if why:
        return why
    if re.search(r"[<>|]", command):
        return "a placeholder to fill in, or a redirection that writes a file"
    return None if command.startswith(RUN) else "no rule"


EXAMPLES = [(doc, cmd) for doc in DOCS for cmd in _commands(doc)]
#: Each command run once, where it is first written.
RUNNABLE = list({cmd: (doc, cmd) for doc, cmd in reversed(EXAMPLES) if _reason_not_run(cmd) is None}.values())[::-1]


def test_every_example_is_run_or_skipped_for_a_reason():
    unclaimed = [(str(d.relative_to(REPO)), c) for d, c in EXAMPLES if _reason_not_run(c) == "no rule"]
    assert not unclaimed, f"shell examples neither run nor skipped for a reason: {unclaimed}"


def _argv(command: str) -> list[str]:
    """The command's arguments, a glob expanded as the shell would, from the repository's root."""
    out = []
    for arg in shlex.split(command)[1:]:
        out.extend(sorted(str(p.relative_to(REPO)) for p in REPO.glob(arg)) if "*" in arg else [arg])
    return out


@pytest.mark.parametrize("doc,command", RUNNABLE,
                         ids=lambda v: str(v.relative_to(REPO)) if isinstance(v, Path) else v[:60])
def test_shell_example_runs(doc, command):
    done = subprocess.run([sys.executable, "-m", "mjlens", *_argv(command)], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, f"{doc.relative_to(REPO)}: {command}\n{done.stderr[-2000:]}"
