"""One tile path: IIIF tiles, IIIF regions and view images come from the same cache entries as DeepZoom/XYZ tiles."""
import math
import random
import re
import time

import pytest

from conftest import FIXTURES, Server

PHOTO = FIXTURES.parent / "gallery" / "large.jpg"  # 3996 × 2582, maxLevel 12
W, H, MAX_LEVEL = 3996, 2582, 12


@pytest.fixture(scope="module")
def photo():
    s = Server([str(PHOTO), "--access-log", "off"])
    yield s
    s.stop()


def metric(server, name):
    _, body = server.get("/metrics")
    match = re.search(rf"^{name} (\d+)$", body.decode(), re.M)
    assert match, name
    return int(match.group(1))


def settle(server):
    """Waits until background prefetch renders stop, so counts compare."""
    last = -1
    for _ in range(100):
        now = metric(server, "tileserver_tiles_rendered_total")
        if now == last:
            return now
        last = now
        time.sleep(0.2)
    return last


def iiif_tile_url(level, x, y, form):
    shrink = 1 << (MAX_LEVEL - level)
    cell = 256 * shrink
    x0, y0 = x * cell, y * cell
    w, h = min(cell, W - x0), min(cell, H - y0)
    tw = min(256, math.ceil(W / shrink) - x * 256)
    th = min(256, math.ceil(H / shrink) - y * 256)
    size = {"w,": f"{tw},", "w,h": f"{tw},{th}", "max": "max"}[form]
    return f"/iiif/3/large/{x0},{y0},{w},{h}/{size}/0/default.jpg", (tw, th)


def test_iiif_tiles_are_the_deepzoom_tiles_from_the_same_cache_entry(photo):
    rng = random.Random(9)
    tiles = set()
    while len(tiles) < 40:
        level = rng.randint(7, MAX_LEVEL)
        shrink = 1 << (MAX_LEVEL - level)
        columns, rows = math.ceil(math.ceil(W / shrink) / 256), math.ceil(math.ceil(H / shrink) / 256)
        # edge tiles (cut to the image) are asked for on purpose a third of the time
        x = columns - 1 if rng.random() < 0.33 else rng.randrange(columns)
        y = rows - 1 if rng.random() < 0.33 else rng.randrange(rows)
        tiles.add((level, x, y))
    deepzoom = {}
    for level, x, y in sorted(tiles):
        response, body = photo.get(f"/images/large_files/{level}/{x}_{y}.jpg")
        assert response.status == 200
        deepzoom[(level, x, y)] = body
    settle(photo)
    rendered = metric(photo, "tileserver_tiles_rendered_total")
    for i, (level, x, y) in enumerate(sorted(tiles)):
        form = "max" if level == MAX_LEVEL and i % 2 else ("w,h" if i % 3 == 0 else "w,")
        url, _ = iiif_tile_url(level, x, y, form)
        hits = metric(photo, "tileserver_tile_cache_hits_total")
        misses = metric(photo, "tileserver_tile_cache_misses_total")
        response, body = photo.get(url)
        assert response.status == 200, (url, body[:200])
        assert body == deepzoom[(level, x, y)], f"{url} is not the bytes of DeepZoom tile {level}/{x}_{y}"
        assert response.getheader("ETag") and response.getheader("Link", "").endswith('rel="profile"')
        assert metric(photo, "tileserver_tile_cache_hits_total") == hits + 1, f"{url} was not a cache hit"
        assert metric(photo, "tileserver_tile_cache_misses_total") == misses
    assert metric(photo, "tileserver_tiles_rendered_total") == rendered, "no IIIF tile rendered anything"


def test_iiif_tile_first_then_deepzoom_is_a_hit(photo):
    url, _ = iiif_tile_url(10, 3, 2, "w,")
    response, iiif = photo.get(url)
    assert response.status == 200
    hits = metric(photo, "tileserver_tile_cache_hits_total")
    response, deepzoom = photo.get("/images/large/tiles/10/3/2.jpg")
    assert deepzoom == iiif and metric(photo, "tileserver_tile_cache_hits_total") == hits + 1


def test_view_image_and_iiif_region_after_a_warm_view_render_no_tile(photo):
    query = "width=900&height=600&zoom=0.4&cx=2100&cy=1300"
    view = photo.json(f"/api/images/large/viewport?{query}")
    for tile in view["tiles"] + view["prefetch"]:
        assert photo.get(tile["url"])[0].status == 200
    before = settle(photo)
    hits = metric(photo, "tileserver_tile_cache_hits_total")
    response, body = photo.get(f"/api/images/large/viewport.jpg?{query}")
    assert response.status == 200 and body[:3] == b"\xff\xd8\xff"
    assert metric(photo, "tileserver_tiles_rendered_total") == before, "viewport.jpg rendered a tile the view had cached"
    assert metric(photo, "tileserver_tile_cache_hits_total") >= hits + len(view["tiles"])
    # A region that is no single tile, inside the warm view, at the view's level (zoom 0.4 → level 11).
    visible = view["visible"]
    x, y = int(visible["x"]) + 37, int(visible["y"]) + 41
    response, body = photo.get(f"/iiif/3/large/{x},{y},1000,700/500,/0/default.png")
    assert response.status == 200 and body[:4] == b"\x89PNG"
    assert metric(photo, "tileserver_tiles_rendered_total") == before, "the IIIF region rendered a tile the view had cached"


def test_transformed_iiif_tiles_are_new_images_not_the_tile(photo):
    url, _ = iiif_tile_url(11, 1, 1, "w,")
    _, plain = photo.get(url)
    for variant in (url.replace("/0/default", "/90/default"), url.replace("/0/default", "/!0/default"),
                    url.replace("/0/default", "/0/gray")):
        response, body = photo.get(variant)
        assert response.status == 200 and body != plain, variant
