"""Versioned, immutable tile URLs: `?v=` of the current version is cached for a year, an old one is sent to the
current one with 307, none keeps the short max-age; a replaced file gets a new version."""
import os
import shutil
import time

import pytest
from PIL import Image

from conftest import FIXTURES, Server

IMMUTABLE = "public, max-age=31536000, immutable"


@pytest.fixture
def replaceable(tmp_path):
    photo = tmp_path / "photo.jpg"
    shutil.copy(FIXTURES / "baseline.jpg", photo)
    s = Server([str(photo), "--access-log", "off"])
    yield s, photo
    s.stop()


def test_every_url_the_api_hands_out_carries_the_version(replaceable):
    server, _ = replaceable
    one = server.json("/api/images/photo")
    version = one["version"]
    assert len(version) == 12 and all(c in "0123456789abcdef" for c in version)
    assert server.json("/api/images")["images"][0]["version"] == version
    assert one["tiles"] == f"/images/photo/tiles/{{z}}/{{x}}/{{y}}.jpg?v={version}"
    assert one["dzi"] == f"/images/photo.dzi?v={version}"
    view = server.json("/api/images/photo/viewport?width=800&height=600")
    urls = [t["url"] for t in view["tiles"]] + [t["url"] for t in view["prefetch"]]
    assert urls and all(u.endswith(f".jpg?v={version}") for u in urls)
    for url in urls[:3]:
        response, body = server.get(url)
        assert response.status == 200 and body[:2] == b"\xff\xd8"
        assert response.getheader("Cache-Control") == IMMUTABLE


def test_current_stale_and_missing_versions(replaceable):
    server, _ = replaceable
    version = server.json("/api/images/photo")["version"]
    for path in ("/images/photo/tiles/10/1/1.jpg", "/images/photo_files/10/1_1.jpg", "/tiles/10/1/1.jpg"):
        response, body = server.get(f"{path}?v={version}")
        assert response.status == 200 and response.getheader("Cache-Control") == IMMUTABLE, path
        etag = response.getheader("ETag")
        assert etag.startswith(f'"{version}-'), etag
        again, _ = server.get(f"{path}?v={version}", headers={"If-None-Match": etag})
        assert again.status == 304
        plain, plain_body = server.get(path)
        assert plain.status == 200 and plain.getheader("Cache-Control") == "public, max-age=86400" and plain_body == body
        stale, _ = server.get(f"{path}?v=0123456789ab")
        assert stale.status == 307, path
        assert stale.getheader("Location") == f"{path}?v={version}"
        assert stale.getheader("Cache-Control") == "no-cache"
    dzi, _ = server.get(f"/images/photo.dzi?v={version}")
    assert dzi.status == 200 and dzi.getheader("Cache-Control") == IMMUTABLE
    stale, _ = server.get("/images/photo.dzi?v=0123456789ab")
    assert stale.status == 307 and stale.getheader("Location") == f"/images/photo.dzi?v={version}"


def test_a_replaced_file_gets_a_new_version_and_old_urls_move_to_it(replaceable, tmp_path):
    server, photo = replaceable
    old = server.json("/api/images/photo")["version"]
    _, old_tile = server.get(f"/images/photo/tiles/10/0/0.jpg?v={old}")
    # Other pixels, same dimensions, the old modification time kept.
    stat = os.stat(photo)
    Image.open(photo).transpose(Image.Transpose.FLIP_LEFT_RIGHT).save(tmp_path / "next.jpg", quality=90)
    os.utime(tmp_path / "next.jpg", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    os.replace(tmp_path / "next.jpg", photo)
    time.sleep(1.1)   # the server looks at the file at most once a second
    new = server.json("/api/images/photo")["version"]
    assert new != old
    moved, _ = server.get(f"/images/photo/tiles/10/0/0.jpg?v={old}")
    assert moved.status == 307 and moved.getheader("Location") == f"/images/photo/tiles/10/0/0.jpg?v={new}"
    response, tile = server.get(f"/images/photo/tiles/10/0/0.jpg?v={new}")
    assert response.status == 200 and tile != old_tile


def test_iiif_versioned_identifiers(replaceable):
    server, _ = replaceable
    version = server.json("/api/images/photo")["version"]
    base = f"/iiif/3/photo@{version}"
    assert server.json("/api/images/photo")["iiif"] == f"{base}/info.json"
    response, body = server.get(f"{base}/info.json")
    assert response.status == 200 and response.getheader("Cache-Control") == IMMUTABLE
    info = __import__("json").loads(body)
    assert info["id"].endswith(base)
    tile, tile_body = server.get(f"{base}/0,0,256,256/256,/0/default.jpg")
    assert tile.status == 200 and tile.getheader("Cache-Control") == IMMUTABLE
    assert tile.getheader("ETag").startswith(f'"{version}-')
    plain, plain_body = server.get("/iiif/3/photo/0,0,256,256/256,/0/default.jpg")
    assert plain.status == 200 and plain_body == tile_body and plain.getheader("Cache-Control") == "public, max-age=86400"
    region, _ = server.get(f"{base}/10,10,300,200/150,/0/gray.png")
    assert region.status == 200 and region.getheader("Cache-Control") == IMMUTABLE
    stale, _ = server.get("/iiif/3/photo@0123456789ab/0,0,256,256/256,/0/default.jpg")
    assert stale.status == 307 and stale.getheader("Location") == f"{base}/0,0,256,256/256,/0/default.jpg"
    stale_info, _ = server.get("/iiif/3/photo@0123456789ab/info.json")
    assert stale_info.status == 307 and stale_info.getheader("Location") == f"{base}/info.json"
    assert server.get("/iiif/3/nope@0123456789ab/info.json")[0].status == 404
