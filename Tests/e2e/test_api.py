"""Every endpoint through Python's http.client and curl, checked against hand-worked numbers."""
import json
import struct
import subprocess

import pytest

from conftest import FIXTURES, Server


APPROX = dict(rel=1e-9, abs=1e-9)


def png_size(body):
    assert body[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", body[16:24])


def jpeg_size(body):
    assert body[:3] == b"\xff\xd8\xff"
    i = 2
    while i < len(body):
        marker, length = body[i + 1], struct.unpack(">H", body[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            h, w = struct.unpack(">HH", body[i + 5:i + 9])
            return w, h
        i += 2 + length
    raise AssertionError("no SOF")


def test_health_and_metrics(server):
    response, body = server.get("/healthz")
    assert response.status == 200 and body == b"ok\n"
    server.get("/tiles/0/0/0")
    response, body = server.get("/metrics")
    text = body.decode()
    assert response.status == 200 and response.getheader("Content-Type").startswith("text/plain")
    for name in ["tileserver_requests_total{route=\"tile\",status=\"200\"}", "tileserver_request_duration_seconds_bucket",
                 "tileserver_tile_cache_hits_total", "tileserver_tile_cache_misses_total", "tileserver_tile_cache_evictions_total",
                 "tileserver_tile_cache_bytes", "tileserver_tile_cache_budget_bytes", "tileserver_tiles_rendered_total",
                 "tileserver_tile_render_seconds_bucket", "tileserver_open_connections", "tileserver_entry_index_bytes"]:
        assert name in text, name
    assert "\ntileserver_entry_index_budget_bytes 67108864\n" in text, "the default --index-memory-mb, 64"


def test_the_entry_index_budget_is_the_servers_setting():
    """--index-memory-mb reaches the one store of entry indexes the server's images are opened with."""
    server = Server([str(FIXTURES / "baseline.jpg"), "--index-memory-mb", "3"])
    try:
        assert server.get("/tiles/10/1/1")[0].status == 200
        text = server.get("/metrics")[1].decode()
        assert "\ntileserver_entry_index_budget_bytes 3145728\n" in text
    finally:
        server.stop()


def test_image_list_and_one_image(server):
    images = server.json("/api/images")["images"]
    assert [i["id"] for i in images] == ["baseline", "wide-9024x3", "tiny-1x1"]
    one = server.json("/api/images/baseline")
    assert one["width"] == 701 and one["height"] == 453 and one["tileSize"] == 256 and one["maxLevel"] == 10
    assert one["format"] == "jpg" and one["tiles"] == f"/images/baseline/tiles/{{z}}/{{x}}/{{y}}.jpg?v={one['version']}"
    response, body = server.get("/api/images/nope")
    assert response.status == 404 and json.loads(body) == {"error": "no image with id 'nope'", "status": 404}


def test_tiles_of_the_default_and_other_images(server):
    response, body = server.get("/tiles/10/2/1")
    assert response.status == 200 and response.getheader("Content-Type") == "image/jpeg"
    assert jpeg_size(body) == (701 - 512, 453 - 256)
    assert response.getheader("Cache-Control") == "public, max-age=86400"
    assert response.getheader("ETag").startswith('"')
    for suffix in [".jpg", ".jpeg"]:
        r, b = server.get("/tiles/10/2/1" + suffix)
        assert r.status == 200 and b == body
    r, b = server.get("/tiles/9/0/0.png")
    assert r.status == 200 and r.getheader("Content-Type") == "image/png" and png_size(b) == (256, 227)
    r, b = server.get("/images/wide-9024x3/tiles/14/35/0.jpg")
    assert r.status == 200 and jpeg_size(b) == (64, 3)
    r, b = server.get("/images/tiny-1x1/tiles/0/0/0.png")
    assert r.status == 200 and png_size(b) == (1, 1)


@pytest.mark.parametrize("path,status", [
    ("/tiles/11/0/0", 404), ("/tiles/10/3/0", 404), ("/tiles/10/0/2", 404), ("/images/nope/tiles/0/0/0.jpg", 404),
    ("/tiles/a/0/0", 400), ("/tiles/-1/0/0", 400), ("/tiles/1/0/0.gif", 400), ("/tiles/1/0", 404),
    ("/nothing-here.html", 404),
])
def test_tile_errors(server, path, status):
    response, body = server.get(path)
    assert response.status == status
    assert response.getheader("Content-Type") == "application/json"
    error = json.loads(body)
    assert error["status"] == status and error["error"]


def test_out_of_range_names_the_grid(server):
    _, body = server.get("/tiles/10/3/0")
    assert json.loads(body)["error"] == "level 10 has 3×2 tiles; asked for 3,0"


def test_common_headers_head_and_304(server):
    response, body = server.get("/tiles/10/0/0")
    for header in ["Date", "Server", "Content-Type", "Content-Length", "Access-Control-Allow-Origin"]:
        assert response.getheader(header), header
    assert response.getheader("Access-Control-Allow-Origin") == "*"
    assert int(response.getheader("Content-Length")) == len(body)
    etag = response.getheader("ETag")
    head, head_body = server.get("/tiles/10/0/0", method="HEAD")
    assert head.status == 200 and head_body == b"" and int(head.getheader("Content-Length")) == len(body)
    again, again_body = server.get("/tiles/10/0/0", headers={"If-None-Match": etag})
    assert again.status == 304 and again_body == b"" and again.getheader("ETag") == etag
    other, _ = server.get("/tiles/10/0/0", headers={"If-None-Match": '"something-else"'})
    assert other.status == 200
    page, page_body = server.get("/")
    assert page.status == 200 and page.getheader("Content-Type").startswith("text/html") and page.getheader("ETag")
    cached, _ = server.get("/", headers={"If-None-Match": page.getheader("ETag")})
    assert cached.status == 304


def test_cors_preflight_and_method_not_allowed(server):
    response, body = server.get("/tiles/0/0/0", method="OPTIONS",
                                headers={"Origin": "http://x", "Access-Control-Request-Method": "GET",
                                         "Access-Control-Request-Headers": "x-custom"})
    assert response.status == 204 and body == b""
    assert response.getheader("Access-Control-Allow-Origin") == "*"
    assert "GET" in response.getheader("Access-Control-Allow-Methods")
    assert response.getheader("Access-Control-Allow-Headers") == "x-custom"
    for method in ["POST", "PUT", "DELETE", "PATCH"]:
        response, body = server.get("/tiles/0/0/0", method=method)
        assert response.status == 405 and response.getheader("Allow") == "GET, HEAD, OPTIONS"
        assert json.loads(body)["status"] == 405


def viewport(server, image, **query):
    q = "&".join(f"{k}={v}" for k, v in query.items())
    return server.json(f"/api/images/{image}/viewport?{q}")


def test_viewport_fit_of_a_photo(server):
    v = viewport(server, "baseline", width=400, height=300)
    fit = 400 / 701
    assert v["zoom"] == pytest.approx(fit, **APPROX) and v["minZoom"] == v["zoom"] and v["maxZoom"] == 1
    assert v["level"] == 10 and v["levelScale"] == 1 and v["tileSize"] == 256
    assert v["visible"] == {"x": 0, "y": 0, "width": 701, "height": 453}
    assert v["inset"]["left"] == 0 and v["inset"]["top"] == pytest.approx((300 - 453 * fit) / 2, **APPROX)
    assert len(v["tiles"]) == 6 and v["prefetch"] == []
    last = v["tiles"][-1]
    assert (last["level"], last["x"], last["y"]) == (10, 2, 1) and last["url"] == f"/images/baseline/tiles/10/2/1.jpg?v={server.json('/api/images/baseline')['version']}"
    assert last["screen"]["x"] == pytest.approx(512 * fit, **APPROX)
    assert last["screen"]["width"] == pytest.approx(189 * fit, **APPROX)


def test_viewport_native_at_the_corner_with_prefetch(server):
    v = viewport(server, "baseline", width=400, height=300, zoom=1, cx=0, cy=0)
    assert v["visible"] == {"x": 0, "y": 0, "width": 400, "height": 300}
    assert [(t["x"], t["y"]) for t in v["tiles"]] == [(0, 0), (1, 0), (0, 1), (1, 1)]
    assert sorted((t["x"], t["y"]) for t in v["prefetch"]) == [(2, 0), (2, 1)]
    assert v["tiles"][3]["screen"] == {"x": 256, "y": 256, "width": 256, "height": 453 - 256}


def test_viewport_clamps_zoom_and_centre(server):
    low = viewport(server, "baseline", width=400, height=300, zoom=0.25)
    assert low["zoom"] == pytest.approx(400 / 701, **APPROX)
    far = viewport(server, "baseline", width=400, height=300, zoom="max", cx=701, cy=453)
    assert far["zoom"] == 1 and far["visible"] == {"x": 301, "y": 153, "width": 400, "height": 300}
    mid = viewport(server, "baseline", width=400, height=300, zoom=0.6)
    assert mid["level"] == 10
    assert mid["visible"]["width"] == pytest.approx(400 / 0.6, **APPROX) and mid["visible"]["height"] == 453
    assert mid["visible"]["x"] == pytest.approx(350.5 - 200 / 0.6, **APPROX)
    assert mid["inset"] == {"top": pytest.approx((300 - 453 * 0.6) / 2, **APPROX), "left": 0, "bottom": pytest.approx((300 - 453 * 0.6) / 2, **APPROX), "right": 0}


def test_viewport_of_a_single_pixel_and_a_strip(server):
    dot = viewport(server, "tiny-1x1", width=100, height=50)
    assert dot["zoom"] == 1 and dot["minZoom"] == 1 and dot["level"] == 0
    assert dot["inset"] == {"top": 24.5, "left": 49.5, "bottom": 24.5, "right": 49.5}
    version = server.json("/api/images/tiny-1x1")["version"]
    assert dot["tiles"] == [{"level": 0, "x": 0, "y": 0, "url": f"/images/tiny-1x1/tiles/0/0/0.jpg?v={version}",
                             "screen": {"x": 49.5, "y": 24.5, "width": 1, "height": 1}}]
    strip = viewport(server, "wide-9024x3", width=1280, height=800)
    assert strip["zoom"] == pytest.approx(1280 / 9024, **APPROX) and strip["level"] == 12 and len(strip["tiles"]) == 9
    assert strip["inset"]["top"] == pytest.approx((800 - 3 * 1280 / 9024) / 2, **APPROX)


def zoomrect(server, **query):
    q = "&".join(f"{k}={v}" for k, v in query.items())
    return server.json(f"/api/images/baseline/zoomrect?width=400&height=300&{q}")


def test_zoomrect_step(server):
    fit = 400 / 701
    r = zoomrect(server, zoom=fit, x=100, y=100)
    assert r["mode"] == "step" and r["fromZoom"] == pytest.approx(fit, **APPROX)
    assert r["zoom"] == pytest.approx(fit * 1.5, **APPROX)
    assert r["rect"]["width"] == pytest.approx(701 / 1.5, **APPROX) and r["rect"]["height"] == pytest.approx(350.5, **APPROX)
    assert r["rect"]["x"] == pytest.approx(100 - 701 / 3, **APPROX) and r["rect"]["y"] == pytest.approx(100 - 175.25, **APPROX)
    assert r["viewport"]["visible"]["x"] == 0 and r["viewport"]["visible"]["y"] == 0
    assert r["viewport"]["zoom"] == r["zoom"]
    capped = zoomrect(server, zoom=0.9, x=600, y=400)
    assert capped["zoom"] == 1 and capped["rect"] == {"x": 400, "y": 250, "width": 400, "height": 300}
    assert capped["viewport"]["visible"] == {"x": 301, "y": 153, "width": 400, "height": 300}
    back = zoomrect(server, zoom=1, x=600, y=400)          # from the largest zoom a step goes back to fit (issue 60)
    assert back["zoom"] == pytest.approx(fit, **APPROX) and back["viewport"]["fit"] is True
    assert back["rect"]["x"] + back["rect"]["width"] / 2 == pytest.approx(350.5, **APPROX)
    named = zoomrect(server, zoom="fit", x=100, y=100)
    assert named["fromZoom"] == pytest.approx(fit, **APPROX) and named["zoom"] == pytest.approx(fit * 1.5, **APPROX)
    double = zoomrect(server, zoom=0.4, x=350.5, y=226.5, factor=1.6)
    assert double["fromZoom"] == pytest.approx(fit, **APPROX) and double["zoom"] == pytest.approx(fit * 1.6, **APPROX)


def test_zoomrect_toggle(server):
    fit = 400 / 701
    inward = zoomrect(server, zoom=fit, x=350, y=200, mode="toggle")
    assert inward["mode"] == "toggle" and inward["zoom"] == 1
    assert inward["rect"] == {"x": 150, "y": 50, "width": 400, "height": 300}
    assert inward["viewport"]["visible"] == {"x": 150, "y": 50, "width": 400, "height": 300}
    outward = zoomrect(server, zoom=0.8, x=10, y=10, mode="toggle")
    assert outward["zoom"] == pytest.approx(fit, **APPROX)
    assert outward["rect"]["x"] == pytest.approx(0, **APPROX) and outward["rect"]["y"] == pytest.approx(226.5 - 300 / fit / 2, **APPROX)


def test_zoomrect_rect(server):
    r = zoomrect(server, rect="100,100,200,150")
    assert r["mode"] == "rect" and "fromZoom" not in r and r["zoom"] == 1
    assert r["rect"] == {"x": 0, "y": 25, "width": 400, "height": 300}
    assert r["viewport"]["visible"] == {"x": 0, "y": 25, "width": 400, "height": 300}
    wide = zoomrect(server, rect="0,0,1402,453")
    assert wide["zoom"] == pytest.approx(400 / 701, **APPROX)
    assert wide["rect"]["x"] == pytest.approx(350.5, **APPROX)


@pytest.mark.parametrize("query,message", [
    ("width=0&height=300", "width must be an integer from 1 to 16384"),
    ("height=300", "width is required: an integer from 1 to 16384"),
    ("width=400&height=99999", "height must be an integer from 1 to 16384"),
    ("width=400&height=300&zoom=-1", "zoom must be a positive number, fit or max, not '-1'"),
    ("width=400&height=300&cx=abc", "cx must be a finite number"),
])
def test_viewport_parameter_errors(server, query, message):
    response, body = server.get(f"/api/images/baseline/viewport?{query}")
    assert response.status == 400 and json.loads(body) == {"error": message, "status": 400}


def test_zoomrect_parameter_errors(server):
    for query in ["width=400&height=300&zoom=1&x=1", "width=400&height=300&zoom=abc&x=1&y=1",
                  "width=400&height=300&zoom=1&x=1&y=1&mode=spin", "width=400&height=300&rect=1,2,3",
                  "width=400&height=300&rect=0,0,0,5", "width=400&height=300&zoom=1&x=1&y=1&factor=0"]:
        response, _ = server.get(f"/api/images/baseline/zoomrect?{query}")
        assert response.status == 400, query


def test_viewport_images(server):
    response, body = server.get("/api/images/baseline/viewport.png?width=300&height=300")
    assert response.status == 200 and response.getheader("Content-Type") == "image/png"
    assert png_size(body) == (300, 300)
    response, body = server.get("/api/images/baseline/viewport.jpg?width=320&height=200&zoom=1&cx=350&cy=226")
    assert response.status == 200 and jpeg_size(body) == (320, 200)
    response, _ = server.get("/api/images/baseline/viewport.jpg?width=5000&height=200")
    assert response.status == 400


def test_viewport_images_turn_as_the_viewer_shows_them():
    """`rotate` turns the view image clockwise, `width × height` being the picture returned: exactly the unturned
    view's pixels turned, made whole and, under a small render budget, in bands (issue 60, item 6)."""
    import io
    import numpy as np
    from PIL import Image
    large = FIXTURES.parent / "gallery" / "large.jpg"
    for budget in ([], ["--render-memory-mb", "16"]):
        server = Server([str(large), "--access-log", "off", *budget])
        try:
            def view(width, height, rotate=None):
                query = f"width={width}&height={height}&zoom=1&cx=2100&cy=1200" + (f"&rotate={rotate}" if rotate is not None else "")
                response, body = server.get(f"/api/images/large/viewport.png?{query}")
                assert response.status == 200, (query, body[:200])
                return np.asarray(Image.open(io.BytesIO(body)).convert("RGB"))
            w, h = (2400, 1500) if budget else (320, 200)
            view(w, h)                                    # the view's tiles made and cached: each later view paints the same
            unturned = view(w, h)
            assert unturned.shape == (h, w, 3) and unturned.std() > 10
            assert np.array_equal(view(w, h, 0), unturned)
            for degrees in (90, 180, 270):
                wanted = np.rot90(unturned, k=-degrees // 90)
                turned = view(*((h, w) if degrees != 180 else (w, h)), degrees)
                assert turned.shape == wanted.shape and np.array_equal(turned, wanted), (budget, degrees)
            for bad in ("45", "-90", "360", "x"):
                response, body = server.get(f"/api/images/large/viewport.jpg?width=20&height=20&rotate={bad}")
                assert response.status == 400 and b"rotate must be 0, 90, 180 or 270" in body, bad
        finally:
            server.stop()


def test_curl_session(server):
    base = f"http://127.0.0.1:{server.port}"
    out = subprocess.run(["curl", "-sS", "-w", "%{http_code} %{content_type}", "-o", "/dev/null", base + "/tiles/10/1/1.jpg"],
                         capture_output=True, text=True, check=True).stdout
    assert out == "200 image/jpeg"
    out = subprocess.run(["curl", "-sS", f"{base}/api/images/baseline/viewport?width=400&height=300"],
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out)["level"] == 10
    out = subprocess.run(["curl", "-sS", "--path-as-is", "-w", " %{http_code}", base + "/../../etc/passwd"],
                         capture_output=True, text=True, check=True).stdout
    assert out.endswith(" 400") and "root:" not in out
