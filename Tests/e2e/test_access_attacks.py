"""Issue 58's attacks that are not one URL of the leak matrix, each against the real binary: where a photo was
taken leaving in its original, share links' scope and revocation, the sign-in throttle, the token service's
origins, the access file's contradictions, tokens in the access log, identity headers sent twice and the `Host`
that IIIF ids are made of."""
import http.client
import io
import json
import os
import re
import subprocess
import time
import urllib.parse

import numpy
import pytest
from PIL import Image

from conftest import Server, binary
from test_access import photos, tool

GPS_TAGS = ["-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945", "-GPSLongitudeRef=E",
            "-XMP:GPSLatitude=48,51.5N", "-XMP:GPSLongitude=2,17.67E", "-XMP-photoshop:City=Paris", "-XMP-photoshop:Country=France",
            "-XMP-dc:Title=Tower at noon"]


def exif(path):
    run = subprocess.run(["exiftool", "-j", "-G", "-a", str(path)], capture_output=True, text=True, check=True)
    return json.loads(run.stdout)[0]


def place_fields(tags):
    """What a file says of where it was taken; a value blanked in place (IIM's spaces) says nothing."""
    return {k: v for k, v in tags.items() if re.search(r"GPS|City|Country|Location", k) and not k.startswith(("Composite", "File"))
            and str(v).strip()}


def request(port, method, path, headers=None, body=None, source="127.0.0.1"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(source, 0))
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response, data


@pytest.fixture(scope="module")
def located(tmp_path_factory):
    """Photos in four formats that say where they were taken (EXIF GPS, XMP GPS and place, IPTC city)."""
    root = tmp_path_factory.mktemp("located")
    lib = root / "lib"
    (lib / "trip").mkdir(parents=True)
    (lib / "kept").mkdir(parents=True)
    subprocess.run(["vips", "gaussnoise", str(root / "float.v"), "640", "480"], check=True)
    subprocess.run(["vips", "cast", str(root / "float.v"), str(root / "noise.v"), "uchar"], check=True)
    for name, suffix in [("jpeg", ".jpg[Q=90]"), ("png", ".png"), ("tiff", ".tif"), ("webp", ".webp[lossless]")]:
        path = lib / "trip" / (name + suffix.split("[")[0])
        subprocess.run(["vips", "copy", str(root / "noise.v"), str(lib / "trip" / name) + suffix], check=True)
        extra = ["-IPTC:City=Paris"] if name in ("jpeg", "tiff") else []
        subprocess.run(["exiftool", "-q", "-overwrite_original", *GPS_TAGS, *extra, str(path)], check=True)
        assert place_fields(exif(path)), name
    subprocess.run(["vips", "copy", str(root / "noise.v"), str(lib / "kept" / "plan.jpg")], check=True)
    (root / "access.toml").write_text('[folder."kept"]\ndownload = false\n')
    server = Server([str(lib), "--access", str(root / "access.toml")])
    server.lib = lib
    yield server
    server.stop()


@pytest.mark.parametrize("name", ["jpeg", "png", "tiff", "webp"])
def test_an_original_leaves_without_where_it_was_taken(located, name, tmp_path):
    """Item 6: `/original` sent the file with its GPS position although --publish-location is off."""
    master = next((located.lib / "trip").glob(name + ".*"))
    response, body = located.get(f"/images/trip%2F{name}/original")
    assert response.status == 200, body[:200]
    sent = tmp_path / master.name
    sent.write_bytes(body)
    assert len(body) == master.stat().st_size, "the file's length is kept: nothing re-encoded"
    head, _ = located.get(f"/images/trip%2F{name}/original", method="HEAD")
    assert head.status == 200 and int(head.getheader("Content-Length")) == len(body), "HEAD answers alike, without the copy"
    assert place_fields(exif(sent)) == {}, place_fields(exif(sent))
    assert exif(sent).get("XMP:Title") == "Tower at noon", "the rest of the metadata stays"
    assert place_fields(exif(master)), "the master itself is untouched"
    changed = sum(a != b for a, b in zip(body, master.read_bytes()))
    assert 0 < changed < 2_000, changed
    assert numpy.array_equal(numpy.asarray(Image.open(io.BytesIO(body))), numpy.asarray(Image.open(master))), "pixels as they were"


def test_a_folder_can_keep_its_originals(located):
    response, body = located.get("/images/kept%2Fplan/original")
    assert response.status == 403 and b"download = false" in body
    entry = located.json("/api/images/kept%2Fplan")
    assert "download" not in entry and "download" in located.json("/api/images/trip%2Fjpeg")
    assert located.get("/images/kept%2Fplan/tiles/8/0/0.jpg")[0].status == 200, "its pictures are shown as ever"


def test_published_locations_leave_the_file_whole(tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    subprocess.run(["vips", "gaussnoise", str(lib / "a.jpg"), "300", "200"], check=True)
    subprocess.run(["exiftool", "-q", "-overwrite_original", *GPS_TAGS, str(lib / "a.jpg")], check=True)
    server = Server([str(lib), "--publish-location", "on"])
    try:
        assert server.get("/images/a/original")[1] == (lib / "a.jpg").read_bytes()
    finally:
        server.stop()


@pytest.fixture
def shared_site(tmp_path):
    """`pub/a.jpg` beside a hidden folder `pub/a/`, which an image link for `pub/a` once opened."""
    lib = photos(tmp_path, {"pub/a": (400, 300), "pub/a/secret": (400, 300), "pub/b": (400, 300)})
    (tmp_path / "access.toml").write_text('[folder."pub/a"]\nview = "hidden"\ngroups = ["staff"]\n'
                                          '[folder."pub"]\nview = "restricted"\ngroups = ["staff"]\n')
    secret = str(tmp_path / "secret.key")
    server = Server([str(lib), "--access", str(tmp_path / "access.toml"), "--secret-file", secret])
    server.lib, server.secret, server.root = lib, secret, tmp_path
    yield server
    server.stop()


def make_link(server, *args):
    run = subprocess.run([binary(), "share", *args, "--secret-file", server.secret], capture_output=True, text=True, timeout=60)
    return run


def token_of(line):
    return urllib.parse.parse_qs(urllib.parse.urlsplit(line.split()[-1]).query)["share"][0]


def works_soon(server, path, want=200):
    deadline = time.time() + 5
    while time.time() < deadline and server.get(path)[0].status != want:
        time.sleep(0.1)
    return server.get(path)[0].status


def test_an_images_link_grants_that_image_alone(shared_site):
    """Item 7: a link made for `pub/a.jpg` opened the hidden folder `pub/a/`."""
    run = make_link(shared_site, "pub/a.jpg", "--library", str(shared_site.lib))
    assert run.returncode == 0, run.stderr
    fields = run.stdout.split()
    assert fields[2:4] == ["image", "pub/a"], run.stdout
    token = token_of(run.stdout)
    assert works_soon(shared_site, f"/api/images/pub%2Fa?share={token}") == 200
    assert shared_site.get(f"/api/images/pub%2Fa%2Fsecret?share={token}")[0].status == 404
    assert shared_site.get(f"/api/images/pub%2Fb?share={token}")[0].status == 401
    assert b"secret" not in shared_site.get(f"/api/images?folder=pub&share={token}")[1]
    # The page a link opens says nothing of what the address names: a hidden folder and a made-up one alike.
    hidden, made_up = (shared_site.get(f"/?folder={f}&share={token}") for f in ("pub%2Fa", "pub%2Fnothing-here"))
    assert (hidden[0].status, hidden[1]) == (made_up[0].status, made_up[1]) and hidden[0].status == 200
    # A folder's link is printed as one, and grants what is below it.
    run = make_link(shared_site, "pub", "--library", str(shared_site.lib))
    assert run.stdout.split()[2:4] == ["folder", "pub"], run.stdout
    assert works_soon(shared_site, f"/api/images/pub%2Fb?share={token_of(run.stdout)}") == 200


def test_a_link_names_what_is_served_and_the_top_needs_everything(shared_site):
    for path in [".", "", "/"]:
        run = make_link(shared_site, path, "--library", str(shared_site.lib))
        assert run.returncode != 0 and "--everything" in run.stderr, (path, run.stdout, run.stderr)
    run = make_link(shared_site, "nowhere/else", "--library", str(shared_site.lib))
    assert run.returncode != 0 and "is not served" in run.stderr, run.stderr
    run = make_link(shared_site, "pub")
    assert run.returncode != 0 and "--library" in run.stderr, run.stderr
    run = make_link(shared_site, "--everything")
    assert run.returncode == 0 and run.stdout.split()[2:4] == ["folder", "/"], run.stdout
    assert works_soon(shared_site, f"/api/images/pub%2Fa%2Fsecret?share={token_of(run.stdout)}") == 200


def test_revocations_fail_closed(shared_site):
    """Item 8: removing the list (or failing to read it) brought revoked links back; a new key was never read."""
    run = make_link(shared_site, "pub", "--library", str(shared_site.lib))
    link_id, token = run.stdout.split()[0], token_of(run.stdout)
    path = f"/api/images/pub%2Fb?share={token}"
    assert works_soon(shared_site, path) == 200
    tool("share", "--revoke", link_id, "--secret-file", shared_site.secret)
    assert works_soon(shared_site, path, 401) == 401
    book = shared_site.secret + ".shares"
    os.rename(book, book + ".away")
    time.sleep(2.5)
    assert shared_site.get(path)[0].status == 401, "a missing list brings no revoked link back"
    os.rename(book + ".away", book)
    fresh = make_link(shared_site, "pub", "--library", str(shared_site.lib))
    fresh_path = f"/api/images/pub%2Fb?share={token_of(fresh.stdout)}"
    assert works_soon(shared_site, fresh_path) == 200
    os.remove(book)
    assert works_soon(shared_site, fresh_path, 401) == 401, "without its list no link works"
    # A new key: links signed with the old one die.
    newer = make_link(shared_site, "pub", "--library", str(shared_site.lib))
    newer_path = f"/api/images/pub%2Fb?share={token_of(newer.stdout)}"
    assert works_soon(shared_site, newer_path) == 200
    with open(shared_site.secret + ".new", "w") as key:
        key.write("ab" * 32 + "\n")
    os.rename(shared_site.secret + ".new", shared_site.secret)
    assert works_soon(shared_site, newer_path, 401) == 401
    _, output = shared_site.stop()
    assert "every share link is refused" in output and "share-link key re-read" in output, output[-2000:]


def test_no_one_can_lock_anyone_out(tmp_path):
    """Item 9: twelve wrong passwords for alice from one address refused her right one from another."""
    photos(tmp_path, {"a": (300, 200)})
    users = str(tmp_path / "users")
    tool("user", "add", "alice", "--users", users, stdin="alice-pw\n")
    server = Server([str(tmp_path / "lib"), "--users", users])
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    try:
        for _ in range(12):
            response, _ = request(server.port, "POST", "/auth/login", form, "username=alice&password=wrong", source="127.0.0.2")
        assert response.status == 429
        response, _ = request(server.port, "POST", "/auth/login", form, "username=alice&password=alice-pw", source="127.0.0.3")
        assert response.status == 303, "a right password from an address with no failures"
        response, _ = request(server.port, "POST", "/auth/login", form, "username=bob&password=x", source="127.0.0.2")
        assert response.status == 429, "the guessing address stays slowed, whatever the name"
    finally:
        server.stop()


def test_behind_a_proxy_the_throttle_counts_the_forwarded_address(tmp_path):
    photos(tmp_path, {"a": (300, 200)})
    users = str(tmp_path / "users")
    tool("user", "add", "alice", "--users", users, stdin="alice-pw\n")
    server = Server([str(tmp_path / "lib"), "--users", users, "--trusted-proxies", "127.0.0.1"])
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    try:
        for _ in range(12):
            # The client writes its own X-Forwarded-For; the proxy appends the address it saw.
            response, _ = request(server.port, "POST", "/auth/login", {**form, "X-Forwarded-For": "10.9.9.9, 192.0.2.7"},
                                  "username=alice&password=wrong")
        assert response.status == 429
        response, _ = request(server.port, "POST", "/auth/login", {**form, "X-Forwarded-For": "192.0.2.8"}, "username=alice&password=alice-pw")
        assert response.status == 303
        response, _ = request(server.port, "POST", "/auth/login", {**form, "X-Forwarded-For": "192.0.2.7"}, "username=alice&password=alice-pw")
        assert response.status == 429
    finally:
        server.stop()


def sign_in(server, user, password):
    response, _ = request(server.port, "POST", "/auth/login", {"Content-Type": "application/x-www-form-urlencoded"},
                          f"username={user}&password={password}")
    assert response.status == 303
    return response.getheader("Set-Cookie")


def test_tokens_go_only_to_listed_origins(tmp_path):
    """Item 10: the token service gave a signed-in user's token to any `origin=`."""
    photos(tmp_path, {"a": (300, 200)})
    users = str(tmp_path / "users")
    tool("user", "add", "alice", "--users", users, stdin="alice-pw\n")
    for listed in [None, "https://mirador.example.org"]:
        server = Server([str(tmp_path / "lib"), "--users", users] + (["--auth-origins", listed] if listed else []))
        try:
            cookie = sign_in(server, "alice", "alice-pw")
            assert ("SameSite=None; Secure" in cookie) == bool(listed), cookie
            session = {"Cookie": cookie.split(";")[0]}
            own = f"http://127.0.0.1:{server.port}"
            for origin, gets in [(own, not listed), ("https://evil.example", False), ("https://mirador.example.org", bool(listed))]:
                page = server.get("/auth/token?messageId=3&origin=" + urllib.parse.quote(origin, safe=""), session)[1].decode()
                assert ("accessToken" in page) == gets, (listed, origin)
                if not gets:
                    assert "invalidOrigin" in page or "AuthAccessTokenError2" in page
        finally:
            server.stop()


def test_a_contradictory_access_file_is_refused_at_start(tmp_path):
    """Item 11: `restricted` with `max_public_size` started and became public up to that size."""
    photos(tmp_path, {"a": (300, 200)})
    access = tmp_path / "access.toml"
    access.write_text('[folder."staff"]\nview = "restricted"\ngroups = ["staff"]\nmax_public_size = 800\n')
    run = subprocess.run([binary(), "serve", str(tmp_path / "lib"), "--access", str(access), "--port", "0"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    assert "line 4, column 1" in run.stderr + run.stdout and "restricted folder cannot have a max_public_size" in run.stderr + run.stdout


def test_tokens_are_logged_by_their_id_alone(tmp_path):
    """Item 12: share tokens were logged whole."""
    photos(tmp_path, {"staff/s": (300, 200)})
    (tmp_path / "access.toml").write_text('[folder."staff"]\nview = "restricted"\ngroups = ["staff"]\n')
    secret = str(tmp_path / "key")
    server = Server([str(tmp_path / "lib"), "--access", str(tmp_path / "access.toml"), "--secret-file", secret])
    try:
        run = subprocess.run([binary(), "share", "staff", "--library", str(tmp_path / "lib"), "--secret-file", secret],
                             capture_output=True, text=True, check=True)
        link_id, token = run.stdout.split()[0], token_of(run.stdout)
        assert works_soon(server, f"/api/images/staff%2Fs?share={token}") == 200
    finally:
        _, output = server.stop()
    assert f"share=s2.{link_id}.…" in output, output[-1500:]
    assert token not in output and token.rsplit(".", 1)[1] not in output


def test_an_identity_header_sent_twice_is_refused(tmp_path):
    photos(tmp_path, {"staff/s": (300, 200)})
    (tmp_path / "access.toml").write_text('[folder."staff"]\nview = "restricted"\ngroups = ["staff"]\n')
    server = Server([str(tmp_path / "lib"), "--access", str(tmp_path / "access.toml"), "--trusted-proxies", "127.0.0.1",
                     "--user-header", "X-Remote-User", "--groups-header", "X-Remote-Groups"])
    try:
        conn = server.connection()
        conn.putrequest("GET", "/api/images/staff%2Fs")
        conn.putheader("X-Remote-User", "mallory")
        conn.putheader("X-Remote-User", "carol")
        conn.putheader("X-Remote-Groups", "staff")
        conn.endheaders()
        response = conn.getresponse()
        assert response.status == 400 and b"more than once" in response.read()
        assert server.get("/api/images/staff%2Fs", {"X-Remote-User": "carol", "X-Remote-Groups": "staff"})[0].status == 200
    finally:
        server.stop()


def test_the_public_url_names_every_iiif_id(tmp_path):
    photos(tmp_path, {"a": (300, 200)})
    server = Server([str(tmp_path / "lib"), "--public-url", "https://images.example.org"])
    try:
        for host in ["evil.example", "127.0.0.1"]:
            info = json.loads(server.get("/iiif/3/a/info.json", {"Host": host, "X-Forwarded-Host": host})[1])
            assert info["id"] == "https://images.example.org/iiif/3/a", info["id"]
            manifest = server.get("/iiif/manifest/a", {"Host": host})[1].decode()
            assert "evil.example" not in manifest and "https://images.example.org/iiif/manifest/a" in manifest
    finally:
        server.stop()
