"""HTTP/1.1 behaviour on raw sockets: keep-alive, pipelining, limits, timeouts, traversal, load, shutdown."""
import json
import os
import re
import select
import shutil
import signal
import socket
import threading
import time

import pytest

from conftest import FIXTURES, Server


def raw(server, data, timeout=5, shutdown=False):
    """Sends bytes on a fresh socket and returns everything read until the server closes or goes quiet."""
    s = socket.create_connection(("127.0.0.1", server.port), timeout=timeout)
    s.sendall(data)
    if shutdown:
        s.shutdown(socket.SHUT_WR)
    chunks = []
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    except socket.timeout:
        pass
    s.close()
    return b"".join(chunks)


def responses(data):
    """Splits a byte stream into (status, headers, body) using Content-Length."""
    out = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
        length = int(headers.get("content-length", 0))
        out.append((status, headers, rest[:length]))
        data = rest[length:]
    return out


def raw_status(server):
    return status_of(raw(server, b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"))


def status_of(data):
    return responses(data)[0][0] if data else None


def test_keep_alive_serves_many_requests_on_one_connection(server):
    conn = server.connection()
    for path in ["/healthz", "/tiles/0/0/0", "/api/images", "/tiles/10/0/0"]:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        assert response.status == 200 and response.getheader("Connection") == "keep-alive"
    conn.close()


def test_pipelined_requests_are_answered_in_order(server):
    batch = b"".join(f"GET {p} HTTP/1.1\r\nHost: t\r\n\r\n".encode() for p in
                     ["/tiles/10/1/0", "/healthz", "/tiles/10/2/1.png", "/api/images/tiny-1x1"])
    batch += b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
    got = responses(raw(server, batch))
    assert [r[0] for r in got] == [200] * 5
    assert got[0][1]["content-type"] == "image/jpeg" and got[1][2] == b"ok\n"
    assert got[2][1]["content-type"] == "image/png" and json.loads(got[3][2])["id"] == "tiny-1x1"
    assert got[4][1]["connection"] == "close"


def test_split_request_and_http10(server):
    s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    for piece in [b"GE", b"T /heal", b"thz HTTP/1.0\r", b"\n\r\n"]:
        s.sendall(piece)
        time.sleep(0.05)
    data = s.recv(4096)
    assert data.startswith(b"HTTP/1.1 200 OK") and b"Connection: close" in data
    s.close()


@pytest.mark.parametrize("request_bytes,status", [
    (b"NONSENSE\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\n\r\n", 400),
    (b"GET / HTTP/3.0\r\nHost: t\r\n\r\n", 505),
    (b"GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n", 413),
    (b"GET /healthz HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n", 413),
    (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: t\r\n\r\n", 414),
    (b"GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + b"b" * 17000 + b"\r\n\r\n", 431),
    (b"GET / HTTP/1.1\r\nHost: t\r\n" + b"".join(b"X-%d: v\r\n" % i for i in range(101)) + b"\r\n", 431),
])
def test_limits_and_malformed_requests(server, request_bytes, status):
    data = raw(server, request_bytes)
    got = responses(data)
    assert got[0][0] == status
    assert got[0][1]["content-type"] == "application/json" and json.loads(got[0][2])["status"] == status
    assert got[0][1]["connection"] == "close"


def test_tiny_body_is_accepted(server):
    data = raw(server, b"GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc")
    assert status_of(data) == 200


def test_incomplete_header_times_out_with_408(server):
    s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n")
    started = time.time()
    data = s.recv(4096)
    elapsed = time.time() - started
    assert data.startswith(b"HTTP/1.1 408 "), data
    assert 0.5 < elapsed < 3, elapsed        # --header-timeout 1
    assert s.recv(4096) == b""               # and closed
    s.close()


@pytest.mark.parametrize("target", [
    b"/../../../../etc/passwd", b"/%2e%2e/%2e%2e/etc/passwd", b"/images/..%2F..%2Fetc/tiles/0/0/0.jpg",
    b"/images/a%2Fb/tiles/0/0/0.jpg", b"/index.html%00.jpg", b"//etc/passwd", b"/.%2e/.%2e/etc/passwd",
])
def test_traversal_attempts_are_refused(server, target):
    data = raw(server, b"GET " + target + b" HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    assert status_of(data) in (400, 404), data[:200]
    assert b"root:" not in data


def test_symlink_out_of_public_is_not_followed(tmp_path):
    public = tmp_path / "public"
    public.mkdir()
    (public / "index.html").write_text("<p>hello</p>")
    os.symlink("/etc/passwd", public / "passwd.txt")
    s = Server([str(FIXTURES / "baseline.jpg"), "--public", str(public), "--access-log", "off"])
    try:
        response, body = s.get("/")
        assert response.status == 200 and body == b"<p>hello</p>"
        response, body = s.get("/passwd.txt")
        assert response.status == 404 and b"root:" not in body
    finally:
        s.stop()


def test_hundred_concurrent_clients(server):
    errors = []
    paths = [f"/tiles/{z}/0/0" for z in range(11)] + ["/api/images", "/healthz", "/api/images/baseline/viewport?width=640&height=480"]

    def client(n):
        try:
            conn = server.connection(timeout=60)
            for k in range(5):
                conn.request("GET", paths[(n + k) % len(paths)])
                response = conn.getresponse()
                response.read()
                if response.status != 200:
                    errors.append((n, response.status))
            conn.close()
        except Exception as e:  # noqa: BLE001 - every failure counts
            errors.append((n, repr(e)))

    threads = [threading.Thread(target=client, args=(n,)) for n in range(100)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_connection_cap_answers_503():
    s = Server([str(FIXTURES / "baseline.jpg"), "--max-connections", "2", "--access-log", "off"])
    try:
        held = [socket.create_connection(("127.0.0.1", s.port)) for _ in range(2)]
        time.sleep(0.3)
        data = raw(s, b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        got = responses(data)
        assert got[0][0] == 503 and json.loads(got[0][2])["status"] == 503
        for h in held:
            h.close()
        deadline = time.time() + 10      # the server notices the closes, then takes new connections again
        while raw_status(s) != 200 and time.time() < deadline:
            time.sleep(0.05)
        assert s.get("/healthz")[0].status == 200
    finally:
        s.stop()


def open_connections(server):
    _, body = server.get("/metrics")
    line = next(l for l in body.decode().splitlines() if l.startswith("tileserver_open_connections"))
    return int(line.split()[1])


def test_sigterm_drains_an_in_flight_request():
    s = Server(["--access-log", "off"])   # the procedural landscape: a view of it takes a while to render
    client = socket.create_connection(("127.0.0.1", s.port), timeout=30)
    client.sendall(b"GET /api/images/landscape/viewport.png?width=512&height=512&zoom=1 HTTP/1.1\r\nHost: t\r\n\r\n")
    deadline = time.time() + 10
    while open_connections(s) < 2 and time.time() < deadline:   # ours plus the /metrics request itself
        time.sleep(0.01)
    time.sleep(0.05)
    s.process.send_signal(signal.SIGTERM)
    data = b""
    while True:
        chunk = client.recv(65536)
        if not chunk:
            break
        data += chunk
    client.close()
    code, output = s.stop()
    got = responses(data)
    assert len(got) == 1 and got[0][0] == 200, (data[:300], output)
    assert got[0][1]["content-type"] == "image/png" and got[0][2][:4] == b"\x89PNG"
    assert got[0][1]["connection"] == "close", "answered while draining"
    assert code == 0, output
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", s.port), timeout=1)


def test_flags_win_over_environment_and_bad_values_are_one_line_errors(tmp_path):
    s = Server([str(FIXTURES / "baseline.jpg"), "--tile-size", "128"], env={"TILESERVER_TILE_SIZE": "512", "TILESERVER_QUALITY": "50",
                                                                             "TILESERVER_ACCESS_LOG": "off"})
    try:
        assert s.json("/api/images/baseline")["tileSize"] == 128
    finally:
        s.stop()
    s = Server([str(FIXTURES / "baseline.jpg")], env={"TILESERVER_TILE_SIZE": "512", "TILESERVER_ACCESS_LOG": "off"})
    try:
        assert s.json("/api/images/baseline")["tileSize"] == 512
    finally:
        s.stop()
    import subprocess
    from conftest import binary
    bad = subprocess.run([binary(), "serve", "--port", "99999"], capture_output=True, text=True, timeout=10)
    assert bad.returncode == 1 and bad.stderr == "tileserver: --port must be an integer from 0 to 65535, not '99999'\n"


def test_directories_ids_and_clashes(tmp_path):
    (tmp_path / "sub").mkdir()
    shutil.copy(FIXTURES / "baseline.jpg", tmp_path / "My Photo!.jpg")
    shutil.copy(FIXTURES / "rgb.png", tmp_path / "b.png")
    shutil.copy(FIXTURES / "gray.jpg", tmp_path / "b.JPEG")
    (tmp_path / "notes.txt").write_text("not an image")
    shutil.copy(FIXTURES / "rgba.png", tmp_path / "sub" / "deep.png")
    s = Server([str(tmp_path), str(FIXTURES / "tiny-1x1.png"), "--access-log", "off"])
    try:
        ids = [i["id"] for i in s.json("/api/images")["images"]]
        # Folders are walked recursively; the JPEG keeps the bare name, the PNG its extension; then the file.
        assert ids == ["b", "b.png", "my-photo", "sub/deep", "tiny-1x1"]
        assert s.get("/images/my-photo/tiles/0/0/0.jpg")[0].status == 200
        moved = s.get("/images/My-Photo-/tiles/0/0/0.jpg")[0]          # the id an earlier version gave it
        assert moved.status == 301 and moved.getheader("Location") == "/images/my-photo/tiles/0/0/0.jpg"
    finally:
        s.stop()


def test_builtin_default_image_serves_its_first_tile_quickly():
    started = time.time()
    s = Server(["--access-log", "off"])
    try:
        image = s.json("/api/images")["images"][0]
        assert image["id"] == "landscape" and max(image["width"], image["height"]) >= 16000
        response, body = s.get("/tiles/0/0/0")
        assert response.status == 200 and body[:3] == b"\xff\xd8\xff"
        assert time.time() - started < 5
        v = s.json("/api/images/landscape/viewport?width=1280&height=800")
        for tile in v["tiles"][:6]:
            assert s.get(tile["url"])[0].status == 200
    finally:
        s.stop()


def test_access_log_lines_are_batched_and_never_lost_on_sigterm():
    """One line per request with the same fields as ever; written within a second, and all of them on SIGTERM."""
    s = Server([str(FIXTURES / "baseline.jpg"), "--access-log", "on"])
    try:
        assert s.get("/tiles/10/1/1")[0].status == 200
        assert s.get("/tiles/10/1/1")[0].status == 200
        assert s.get("/tiles/99/0/0")[0].status == 404
        # within a second the flusher thread has written them, while the server runs on
        seen, deadline = b"", time.time() + 3
        while b"/tiles/99/0/0" not in seen and time.time() < deadline:
            ready, _, _ = select.select([s.process.stdout], [], [], 0.2)
            if ready:
                seen += os.read(s.process.stdout.fileno(), 65536)
        assert b"/tiles/99/0/0 404" in seen, seen
        s.lines.append(seen.decode())
        conn = s.connection()
        for i in range(300):
            conn.request("GET", f"/healthz?n={i}")
            conn.getresponse().read()
        conn.close()
    finally:
        code, output = s.stop()
    assert code == 0
    lines = [line for line in output.splitlines() if re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ ", line)]
    assert re.search(r" GET /tiles/10/1/1 200 \d+ \d+us miss$", "\n".join(lines), re.M), lines[:5]
    assert re.search(r" GET /tiles/10/1/1 200 \d+ \d+us hit$", "\n".join(lines), re.M)
    assert any(line.endswith("us -") and " /tiles/99/0/0 404 " in line for line in lines)
    assert sum(" /healthz?n=" in line for line in lines) == 300, "every line reached the log, the last ones at SIGTERM"
