"""Shared fixtures: the repository's samples and the `sylcol` CLI that
every answer is compared with.

The CLI is ``$SYLCOL`` when set, else ``target/debug/sylcol`` (built by
``cargo test --workspace``, which `.ci/run` runs first), else it is built
here with ``cargo build -p sylcol-cli``.
"""

import atexit
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

import sylcol

ROOT = Path(__file__).resolve().parents[3]


def _pristine_samples() -> Path:
    """A copy of the repository's sample archives for this run, without
    the `names.txt` a user's `sylcol names harvest samples` (the README's
    first command) leaves beside them; and an empty cache folder, so that
    names a user's harvests kept in theirs never reach a test."""
    copy = Path(tempfile.mkdtemp(prefix="sylcol-samples-"))
    for f in ("MiscBin.pak", "MiscBin.p00", "Tables.pak", "Tables.p00"):
        shutil.copy(ROOT / "samples" / f, copy / f)
    cache = tempfile.mkdtemp(prefix="sylcol-cache-")
    os.environ["XDG_CACHE_HOME"] = cache
    atexit.register(shutil.rmtree, copy, True)
    atexit.register(shutil.rmtree, cache, True)
    return copy


SAMPLES = _pristine_samples()
PAK = SAMPLES / "MiscBin.pak"
TABLES = SAMPLES / "Tables.pak"
ARCHIVES = [PAK, TABLES]
FIXTURES = ROOT / "tests" / "fixtures"


def _cli() -> Path:
    if os.environ.get("SYLCOL"):
        return Path(os.environ["SYLCOL"])
    built = ROOT / "target" / "debug" / "sylcol"
    if not built.exists():
        subprocess.run(
            ["cargo", "build", "-q", "-p", "sylcol-cli"], cwd=ROOT, check=True
        )
    return built


CLI = _cli()


def run_cli(*args, input_text=None, check=True):
    """Runs the CLI; returns (exit code, stdout, stderr)."""
    p = subprocess.run(
        [str(CLI), *map(str, args)],
        cwd=ROOT,
        input=input_text,
        capture_output=True,
        text=True,
    )
    if check and p.returncode != 0:
        raise AssertionError(f"sylcol {args} exited {p.returncode}: {p.stderr}")
    return p.returncode, p.stdout, p.stderr


def cli_json(*args):
    """The CLI's --json output, parsed."""
    return json.loads(run_cli("--json", *args)[1])


def cli_verified(*args):
    """The one object's report in ``sylcol verify --json ...``'s run: what
    ``verify()`` of one object returns (without ``shares_content_with``,
    which names the other objects of a run: none for one object)."""
    run = cli_json("verify", *args)
    assert len(run["objects"]) == 1 and not run["errors"], run
    obj = dict(run["objects"][0])
    assert obj.pop("shares_content_with") == []
    return obj


def cli_object(*args):
    """The one object of `sylcol --json info PATH` on one object: the
    document's `objects[0]` without `shares_content_with` (which names the
    other objects of a run, none for one object)."""
    doc = cli_json(*args)
    assert len(doc["objects"]) == 1, doc
    obj = dict(doc["objects"][0])
    assert obj.pop("shares_content_with") == []
    return obj


_LISTINGS = {}


def listing(pak):
    """``sylcol pak list --json PAK``'s entries (parsed once per archive):
    what the sample archives hold, so that no test hard-codes a count."""
    if pak not in _LISTINGS:
        _LISTINGS[pak] = cli_json("pak", "list", pak)["entries"]
    return _LISTINGS[pak]


def entry_path(pak, display):
    """``PAK+ENTRY`` for an entry `pak list` displays as `display` (an
    unnamed ``$HASH.MAGIC`` is loaded as ``$HASH``)."""
    return f"{pak}+{display.split('.')[0] if display.startswith('$') else display}"


def entries_with_magic(pak, *magics):
    """The display names of the entries whose magic is one of `magics`
    (None: no printable magic, as a CollisionSet has), per the CLI."""
    return [row["entry"] for row in listing(pak) if row["magic"] in magics]


@pytest.fixture(scope="session")
def archive():
    return sylcol.open_archive(PAK)


@pytest.fixture(scope="session")
def objects(archive):
    """Every object of MiscBin.pak, decoded: {display name: Mcol |
    CollisionSet | Regn}."""
    return {e.display: e.decode() for e in archive}


@pytest.fixture(scope="session")
def maps(objects):
    return {k: v for k, v in objects.items() if isinstance(v, sylcol.Mcol)}


@pytest.fixture(scope="session")
def regions(objects):
    return {k: v for k, v in objects.items() if isinstance(v, sylcol.Regn)}


@pytest.fixture(scope="session")
def tables():
    """Every object of Tables.pak, decoded: {display name: StringTable}."""
    return {e.display: e.decode() for e in sylcol.open_archive(TABLES)}


@pytest.fixture(scope="session")
def library(objects):
    return objects["CollisionSet_S01.bin"]


@pytest.fixture(scope="session")
def exported(tmp_path_factory):
    """The whole sample archive as the CLI exports it (OBJ files)."""
    out = tmp_path_factory.mktemp("export") / "meshes"
    run_cli("export", PAK, "-o", out)
    return out


@pytest.fixture()
def scratch(tmp_path):
    """A scratch copy of the samples (for damaging)."""
    for f in ("MiscBin.pak", "MiscBin.p00"):
        shutil.copy(SAMPLES / f, tmp_path / f)
    return tmp_path
