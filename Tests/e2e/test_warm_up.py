"""The level above a view is warmed by its decode pass, never decoded tile by tile beside it: a never-seen photo's
fitted view once had each of the 240 tiles of the level above decoded alone while the full pass that cuts them
ran, on the cores its 60 visible tiles waited for. Against the real server and its /metrics."""
import io
import re
import time

import numpy as np
import pytest
from PIL import Image

from conftest import Server


def metric(server, name):
    _, body = server.get("/metrics")
    match = re.search(rf"^{re.escape(name)} (\d+)$", body.decode(), re.M)
    assert match, name
    return int(match.group(1))


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("warm") / "photos"
    root.mkdir()
    y, x = np.mgrid[0:2880, 0:5120].astype(np.float32)
    rng = np.random.default_rng(7)
    bands = [127 + 90 * np.sin(x / (300 + 97 * k) + y / (410 - 60 * k)) + rng.normal(0, 10, x.shape) for k in range(3)]
    Image.fromarray(np.clip(np.dstack(bands), 0, 255).astype(np.uint8)).save(root / "photo.jpg", quality=90)
    server = Server([str(root), "--access-log", "off", "--store-dir", str(root.parent / "store")])
    server.wait_for_index()
    yield server
    server.stop()


def test_the_level_above_a_fitted_view_comes_from_the_pass_not_from_decodes_beside_it(served):
    assert served.get("/images/photo/thumbnail")[0].status == 200       # its 1/8 pass, which indexes the file
    view = served.json("/api/images/photo/viewport?width=1440&height=784&zoom=fit&dpr=1&format=jpg")
    above = [t for t in view["prefetch"] if t["level"] == view["level"] + 1]
    assert len(view["tiles"]) == 60 and len(above) == 240, (len(view["tiles"]), len(above))
    for t in view["tiles"]:
        assert served.get(t["url"])[0].status == 200
    deadline = time.monotonic() + 60
    while metric(served, 'tileserver_passes_completed_total{pass="full"}') < 1:
        assert time.monotonic() < deadline, "the full pass did not finish"
        time.sleep(0.1)
    direct = metric(served, "tileserver_direct_decodes_total")
    assert direct <= len(view["tiles"]), f"{direct} tiles decoded alone beside the pass"
    # Warmed all the same: the level above is in the store, and reading it back renders nothing.
    rendered = metric(served, "tileserver_tiles_rendered_total")
    for t in above[::24]:
        response, body = served.get(t["url"])
        assert response.status == 200, t
        assert Image.open(io.BytesIO(body)).size[0] == 256 or t["x"] == 19, t
    assert metric(served, "tileserver_tiles_rendered_total") == rendered
