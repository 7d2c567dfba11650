"""Memory bombs (docs/reliability.md, "Memory bombs"): an object that
declares more bytes than sylcol holds raises MemoryLimitError (both a
MemoryError and a SylcolError) before it is inflated, with the CLI's
kind, path and message; memory that cannot be had raises it too. Each
bomb runs in a child interpreter under an address-space cap, where the
allocation once aborted the interpreter (SIGABRT) instead of raising."""

import json
import struct
import subprocess
import sys
import textwrap
import zlib

import pytest

import sylcol
from conftest import run_cli

GIB = 1 << 30


def mcol_header():
    """An MCOL header of no vertex, triangle or cell: its bound is 4 KiB."""
    return b"MCOL" + bytes(0x7C)


def z1(head, size):
    """A Z1 entry inflating to `head` then zeros, `size` bytes in all
    (a gigabyte of zeros deflates to about 1 MB)."""
    comp = zlib.compressobj(9)
    body, adler = [comp.compress(head)], zlib.adler32(head)
    chunk, left = bytes(1 << 20), size - len(head)
    while left:
        n = min(left, len(chunk))
        body.append(comp.compress(chunk[:n]))
        adler = zlib.adler32(chunk[:n], adler)
        left -= n
    body.append(comp.flush())
    return b"Z1" + struct.pack(">II", size, adler) + b"".join(body)


@pytest.fixture(scope="module")
def bomb(tmp_path_factory):
    """Bomb.pak: entry $00000040, an MCOL header before 1 GiB of zeros
    (1 MB stored: the issue's bomb)."""
    folder = tmp_path_factory.mktemp("bombs")
    data = z1(mcol_header(), GIB)
    index = b"IPFB" + struct.pack(">III", 1, 0x800, 0x10000000)
    index += struct.pack(">III", 0x40, 0, len(data))
    (folder / "Bomb.p00").write_bytes(data)
    (folder / "Bomb.pak").write_bytes(index)
    return folder / "Bomb.pak"


def capped(code, mib=600):
    """Runs `code` (after `import sylcol`) in a child interpreter whose
    address space is capped at `mib` MiB. It prints a JSON list: the
    class of the exception it caught, then its kind, path and message."""
    prelude = textwrap.dedent(
        f"""
        import json, resource
        resource.setrlimit(resource.RLIMIT_AS, ({mib << 20}, {mib << 20}))
        import sylcol
        def report(e):
            assert isinstance(e, MemoryError) and isinstance(e, sylcol.SylcolError), e
            print(json.dumps([type(e).__name__, e.kind, e.path, e.message]))
        """
    )
    p = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, f"exit {p.returncode} (a signal if negative): {p.stderr}"
    return json.loads(p.stdout)


def test_load_refuses_a_bomb_before_inflating_it(bomb):
    entry = f"{bomb}+$00000040"
    got = capped(
        f"""
        try:
            sylcol.load({entry!r})
        except MemoryError as e:
            report(e)
        """
    )
    name, kind, path, message = got
    assert (name, kind) == ("MemoryLimitError", "too_large")
    assert path == f"{bomb}+$00000040.MCOL"
    assert "MCOL of 1073741824 bytes is too large to read" in message
    code, _, err = run_cli("--json", "info", entry, check=False)
    cli = json.loads(err.splitlines()[0])["error"]
    assert code == 2 and (cli["kind"], cli["path"], cli["message"]) == (kind, path, message)
    # The same through the archive, entry by entry.
    assert capped(
        f"""
        try:
            sylcol.open_archive({str(bomb)!r})["$00000040"].decode()
        except MemoryError as e:
            report(e)
        """
    ) == got


def test_reading_a_bomb_whole_under_a_cap_raises(bomb):
    """`Entry.read()` holds any entry whole (no size rule applies to raw
    bytes), so a gigabyte under 600 MiB cannot be had: an error."""
    name, kind, path, message = capped(
        f"""
        try:
            sylcol.open_archive({str(bomb)!r})["$00000040"].read()
        except MemoryError as e:
            report(e)
        """
    )
    assert (name, kind, path) == ("MemoryLimitError", "out_of_memory", "Bomb.p00")
    assert message.startswith("entry $00000040.MCOL (Bomb.p00): cannot hold its 1073741824 bytes")


def test_bytes_and_files_are_held_within_their_bound(tmp_path):
    data = mcol_header() + bytes(100_000)
    with pytest.raises(sylcol.MemoryLimitError) as e:
        sylcol.load(data)
    assert e.value.kind == "too_large" and e.value.path == "<bytes>"
    assert e.value.offset == 0x50
    big = tmp_path / "big.mcol"
    big.write_bytes(mcol_header())
    with open(big, "r+b") as f:
        f.truncate(GIB)  # sparse: no disk space
    name, kind, path, message = capped(
        f"""
        try:
            sylcol.load({str(big)!r})
        except MemoryError as e:
            report(e)
        """
    )
    assert (name, kind, path) == ("MemoryLimitError", "too_large", str(big))
    assert "MCOL of 1073741824 bytes is too large to read" in message
