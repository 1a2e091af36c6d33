"""What a deployment relies on: the viewer compiled into the binary (a copy of it alone, run from another
directory, serves public/ byte for byte), `tileserver healthcheck`, and an empty image folder serving the built-in
landscape (a container started without photos)."""
import shutil
import subprocess

import pytest

from conftest import ROOT, Server, binary


@pytest.fixture(scope="module")
def lone(tmp_path_factory):
    """The binary copied into an empty directory and started there, with nothing beside it."""
    home = tmp_path_factory.mktemp("lone")
    shutil.copy(binary(), home / "tileserver")
    images = home / "images"
    images.mkdir()
    s = Server([str(images), "--access-log", "off"], cwd=home, executable=str(home / "tileserver"))
    yield s, home
    s.stop()


def test_the_viewer_is_compiled_in(lone):
    server, _ = lone
    files = [p for p in (ROOT / "public").rglob("*") if p.is_file() and not p.name.startswith(".")]
    assert len(files) >= 5
    for path in files:
        response, body = server.get("/" + path.relative_to(ROOT / "public").as_posix())
        assert response.status == 200 and body == path.read_bytes(), path
        etag = response.getheader("ETag")
        again, _ = server.get("/" + path.relative_to(ROOT / "public").as_posix(), headers={"If-None-Match": etag})
        assert again.status == 304
    # `/` is the same page with the first image's thumbnail written in, once the server has made it.
    assert server.get("/images/landscape/thumbnail")[0].status == 200
    index, body = server.get("/")
    assert index.status == 200 and index.getheader("Content-Type") == "text/html; charset=utf-8"
    page = (ROOT / "public/index.html").read_bytes()
    assert body != page and body.startswith(page[:page.index(b"/*first-picture*/")]), body[:2000]
    assert b"const written = 'landscape';" in body and b'<img id="first-picture" alt="" elementtiming="thumbnail" data-image="landscape" src="data:image/jpeg;base64,' in body
    assert server.get("/nope.js")[0].status == 404


def test_an_empty_image_folder_serves_the_landscape(lone):
    server, _ = lone
    assert [i["id"] for i in server.json("/api/images")["images"]] == ["landscape"]
    assert any("serving the built-in landscape" in line for line in server.lines), server.lines


def test_healthcheck(lone):
    server, home = lone
    exe = str(home / "tileserver")
    ok = subprocess.run([exe, "healthcheck", f"http://127.0.0.1:{server.port}/healthz"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    by_env = subprocess.run([exe, "healthcheck"], capture_output=True, text=True, env={"TILESERVER_PORT": str(server.port)})
    assert by_env.returncode == 0, by_env.stderr
    missing = subprocess.run([exe, "healthcheck", f"http://127.0.0.1:{server.port}/nope"], capture_output=True, text=True)
    assert missing.returncode == 1 and "answered 404" in missing.stderr
    server_port_free = subprocess.run([exe, "healthcheck", "http://127.0.0.1:1/healthz", "--timeout", "2"],
                                      capture_output=True, text=True)
    assert server_port_free.returncode == 1 and "Connection refused" in server_port_free.stderr
    bad = subprocess.run([exe, "healthcheck", "https://example.org/"], capture_output=True, text=True)
    assert bad.returncode == 1 and "only http://" in bad.stderr
