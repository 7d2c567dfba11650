"""The sample library's parts that are not fully manifold: an engine (an
open nozzle, single-sided fins welded to it) refuses ``inside`` as
``sylcol query inside`` does and answers every other query; a wing of
double-sided panels answers ``inside``: nothing is enclosed."""

import json

import numpy as np
import pytest

import sylcol

from conftest import PAK, run_cli


def test_an_engine_refuses_inside_with_the_cli_s_reason(library):
    c = library["rou_e101_eng_01"].collider()
    with pytest.raises(sylcol.UnsupportedError) as e:
        c.inside([0.0, 0.0, 0.0])
    code, _, err = run_cli("--json", "query", f"{PAK}+CollisionSet_S01.bin", "--mesh",
                           "rou_e101_eng_01", "inside", "--point", "0,0,0", check=False)
    cli = json.loads(err)["error"]
    assert code == 2 and e.value.kind == cli["kind"] == "unsupported"
    # The same sentence after the name each front gives the part.
    assert e.value.message.split(": ", 1)[1] == cli["message"].split(": ", 1)[1]
    # Asked again, the same refusal; the other queries answer.
    with pytest.raises(sylcol.UnsupportedError):
        c.inside(np.zeros((4, 3), dtype=np.float32))
    cl = c.closest([0.0, 0.0, 0.0])
    h = c.ray([0.0, 0.0, 0.0], cl.point)
    assert h.hit[0] and h.triangle[0] >= 0
    assert c.sphere([0.0, 0.0, 0.0], [0.01], cl.point).hit[0]


def test_double_sided_wing_panels_enclose_nothing(library):
    mesh = library["rou_e901_wing_01_L"]
    c = mesh.collider()
    lo, hi = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    points = np.random.default_rng(38).uniform(lo, hi, size=(500, 3)).astype(np.float32)
    off = c.closest(points).distance > 1e-3 * float(np.linalg.norm(hi - lo))
    assert off.sum() > 400
    assert not c.inside(points[off]).any()
    assert c.inside(mesh.vertices[::7]).all()


def test_threads_asking_inside_first_at_once_all_get_the_refusal(library):
    """The first ``inside`` works out the refusal without the GIL; threads
    that ask meanwhile neither deadlock nor see another answer."""
    import threading

    c = library["rou_e106_eng"].collider()
    start, raised = threading.Barrier(8), []

    def ask():
        start.wait()
        try:
            c.inside([0.0, 0.0, 0.0])
        except sylcol.UnsupportedError as e:
            raised.append(e.kind)

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    assert raised == ["unsupported"] * 8
