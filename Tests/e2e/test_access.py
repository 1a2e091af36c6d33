"""Access control on the real binary: the leak matrix (three images and a hidden folder × five identities × every
URL form that emits pixels, sizes or names, each also as HEAD and as a conditional GET with an ETag obtained as
`staff`), sign-in, share links, hostile tokens and paths, cache headers and the access log."""
import http.client
import json
import os
import re
import subprocess
import time
import urllib.parse
from pathlib import Path

import pytest

from conftest import Server, binary

ACCESS = """\
# the issue's contract
[folder."works"]
max_public_size = 1000          # anyone: up to 1000 px on the long side; more needs sign-in
[folder."staff"]
view = "restricted"             # public | restricted | hidden
groups = ["staff"]              # "*" = any signed-in user
[folder."drafts"]
view = "hidden"
groups = ["staff"]
"""

IMAGES = {"public/open": "public", "works/tiered": "tiered", "staff/secret": "restricted", "drafts/draft": "hidden"}
SIZES = {"public/open": (2400, 1600), "works/tiered": (3000, 2000), "staff/secret": (2200, 1500), "drafts/draft": (2100, 1400)}
DEFAULT = "drafts/draft"  # the first image in library order: what /tiles/{z}/{x}/{y} serves
IDENTITIES = ["anonymous", "signed-in", "staff", "share-other", "share-this"]


def vips(*args):
    subprocess.run(["vips", *args], check=True, capture_output=True)


def photos(root: Path, sizes) -> Path:
    """`root/lib` with a noise photo per `{"folder/name": (width, height)}`: the library the server is started on."""
    lib = root / "lib"
    for image, (w, h) in sizes.items():
        (lib / image).parent.mkdir(parents=True, exist_ok=True)
        vips("gaussnoise", str(lib / image) + ".jpg", str(w), str(h))
    return lib


def tool(*args, stdin=None):
    run = subprocess.run([binary(), *args], input=stdin, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout


class Site:
    """A served library with an access file, two users, share links, and a way to ask as each identity."""

    def __init__(self, root: Path, extra=()):
        self.root = root
        lib = self.lib = photos(root, SIZES)
        # A link from a public folder into the restricted one, and one to the hidden folder: the strictest rule applies.
        os.symlink("../staff/secret.jpg", lib / "public" / "peek.jpg")
        (root / "access.toml").write_text(ACCESS)
        self.users = str(root / "users.txt")
        self.secret = str(root / "secret.key")
        tool("user", "add", "alice", "--group", "staff", "--users", self.users, stdin="alice-password\n")
        tool("user", "add", "bob", "--users", self.users, stdin="bob-password\n")
        self.server = Server([str(lib), "--access", str(root / "access.toml"), "--users", self.users,
                              "--secret-file", self.secret, *extra])
        self.shares = {folder: self.share(folder) for folder in ("public", "works", "staff", "drafts")}
        self.cookies = {"signed-in": self.sign_in("bob", "bob-password"), "staff": self.sign_in("alice", "alice-password")}

    def share(self, path, expires="1h"):
        """A link made by `tileserver share`, once the server has read it from the list (within a second)."""
        line = tool("share", path, "--library", str(self.lib), "--expires", expires, "--secret-file", self.secret).strip()
        link = line.split()[-1]
        deadline = time.time() + 5
        while time.time() < deadline and self.request("GET", link)[0].status != 200:
            time.sleep(0.1)
        return urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["share"][0], line.split()[0], link

    def request(self, method, path, headers=None, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        data = response.read()
        conn.close()
        return response, data

    def sign_in(self, user, password):
        response, _ = self.request("POST", "/auth/login", {"Content-Type": "application/x-www-form-urlencoded"},
                                   f"username={user}&password={password}")
        assert response.status == 303, response.status
        cookie = response.getheader("Set-Cookie")
        assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie, cookie
        return cookie.split(";")[0]

    def headers(self, identity, image=None):
        if identity in self.cookies:
            return {"Cookie": self.cookies[identity]}
        if identity == "share-other":
            return {"Cookie": "tileserver_share=" + self.shares["public"][0]}
        if identity == "share-this":
            return {"Cookie": "tileserver_share=" + self.shares[image.split("/")[0]][0]}
        return {}

    def stop(self):
        return self.server.stop()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    s = Site(tmp_path_factory.mktemp("access"))
    yield s
    s.stop()


def escaped(image):
    return urllib.parse.quote(image, safe="")


def forms(image):
    """Every URL form that emits pixels, sizes or names of `image`: (name, path, kind) where kind says what a
    tiered image's public viewer gets: `small` (allowed), `large` (past the cap: refused) or `info` (allowed)."""
    e = escaped(image)
    w, h = SIZES[image]
    top = max(w, h).bit_length()  # DeepZoom's full-size level
    return [
        ("tile jpg", f"/images/{e}/tiles/{top}/0/0.jpg", "large"),
        ("tile png", f"/images/{e}/tiles/{top}/1/1.png", "large"),
        ("tile webp", f"/images/{e}/tiles/{top}/0/1.webp", "large"),
        ("tile small", f"/images/{e}/tiles/{top - 3}/0/0.jpg", "small"),
        ("dzi", f"/images/{e}.dzi", "info"),
        ("dzi tile", f"/images/{e}_files/{top}/0_0.jpg", "large"),
        ("iiif info", f"/iiif/3/{e}/info.json", "info"),
        ("full/max", f"/iiif/3/{e}/full/max/0/default.jpg", "small"),
        ("region", f"/iiif/3/{e}/0,0,512,512/512,/0/default.jpg", "large"),
        ("past cap", f"/iiif/3/{e}/full/2000,/0/default.jpg", "large"),
        ("^max", f"/iiif/3/{e}/full/^max/0/default.jpg", "small"),
        ("view image", f"/api/images/{e}/viewport.jpg?width=800&height=600&zoom=1", "large"),
        ("view image fit", f"/api/images/{e}/viewport.jpg?width=800&height=600", "small"),
        ("viewport json", f"/api/images/{e}/viewport?width=800&height=600", "info"),
        ("thumbnail", f"/images/{e}/thumbnail.jpg", "small"),
        ("manifest", f"/iiif/manifest/{e}", "info"),
        ("metadata", f"/api/images/{e}", "info"),
    ] + ([("xyz (default image)", f"/tiles/{top}/0/0.jpg", "large")] if image == DEFAULT else [])


def expected(image, identity, kind):
    """The status `identity` must get for a form of `kind` of `image`."""
    cls = IMAGES[image]
    if cls == "public":
        return 200
    granted = identity == "staff" or identity == "share-this"
    if cls == "tiered":
        if granted or identity == "signed-in" or kind != "large":
            return 200
        return 401
    if granted:
        return 200
    if cls == "restricted":
        return 403 if identity == "signed-in" else 401
    return 404


def missing_body(site, form_path, image):
    """What a request of the same form for an image that does not exist answers."""
    ghost = "nowhere/ghost"
    response, body = site.request("GET", form_path.replace(escaped(image), escaped(ghost)))
    return response.status, body.replace(ghost.encode(), image.encode())


def test_leak_matrix(site):
    etags = {}
    rows = []
    leaks = []
    for image in IMAGES:
        for name, path, kind in forms(image):
            staff, _ = site.request("GET", path, site.headers("staff", image))
            etags[path] = staff.getheader("ETag")
            for identity in IDENTITIES:
                headers = site.headers(identity, image)
                want = expected(image, identity, kind)
                response, body = site.request("GET", path, headers)
                head, head_body = site.request("HEAD", path, headers)
                cells = [response.status, head.status]
                problems = []
                if response.status != want or head.status != want:
                    problems.append(f"GET {response.status}, HEAD {head.status}, expected {want}")
                if head_body:
                    problems.append("HEAD has a body")
                if etags[path]:
                    # An ETag learnt as staff: a 304 only where the picture may be seen; elsewhere the refusal.
                    conditional, _ = site.request("GET", path, {**headers, "If-None-Match": etags[path]})
                    cells.append(conditional.status)
                    if conditional.status not in ((304, 200) if want == 200 else (want,)):
                        problems.append(f"conditional GET {conditional.status}, expected {want}")
                if want in (401, 403):
                    text = body.decode("utf-8", "replace")
                    if response.getheader("Content-Type") != "application/json" or re.search(rf"\b({SIZES[image][0]}|{SIZES[image][1]})\b", text):
                        problems.append("a refusal carries more than its reason")
                    if response.getheader("Cache-Control") != "private, no-store":
                        problems.append("a refusal may be cached")
                if want == 404:
                    status, ghost = missing_body(site, path, image)
                    if (status, ghost) != (response.status, body):
                        problems.append(f"hidden differs from missing: {body[:120]!r} vs {ghost[:120]!r}")
                if want == 200 and IMAGES[image] != "public":
                    if "private" not in (response.getheader("Cache-Control") or "private"):
                        problems.append("a personal answer is publicly cacheable")
                    if "Cookie" not in (response.getheader("Vary") or ""):
                        problems.append("a personal answer does not vary by cookie")
                if want == 200 and IMAGES[image] == "public" and path.endswith((".jpg", ".png", ".webp")) and "viewport" not in path:
                    if (response.getheader("Cache-Control") or "").startswith("private"):
                        problems.append("a public tile is private")
                rows.append((image, name, identity, "/".join(map(str, cells)), "LEAK: " + "; ".join(problems) if problems else "ok"))
                if problems:
                    leaks.append((image, name, identity, problems))
    print()
    print(f"{'image':14} {'form':15} {'identity':12} {'GET/HEAD/304':13} result")
    for row in rows:
        print(f"{row[0]:14} {row[1]:15} {row[2]:12} {row[3]:13} {row[4]}")
    assert not leaks, leaks[:10]


def listing_text(site, identity, path):
    response, body = site.request("GET", path, site.headers(identity, "public/open"))
    return response, body.decode()


@pytest.mark.parametrize("identity", IDENTITIES)
def test_listings_never_name_or_count_what_is_hidden(site, identity):
    sees_hidden = identity == "staff"
    for path in ["/api/images", "/api/images?folder=", "/iiif/collection", "/?image=public%2Fopen", "/", "/api/images?folder=public",
                 "/iiif/collection/public"]:
        response, text = listing_text(site, identity, path)
        assert response.status == 200, (path, response.status)
        if path.startswith(("/api/images", "/iiif/collection")) and path.count("public") == 0:
            assert ("drafts" in text) == sees_hidden, (identity, path, text[:400])
        assert sees_hidden or "drafts" not in text, (identity, path)
        assert "private" in response.getheader("Cache-Control") and "Cookie" in response.getheader("Vary"), path
    # The page with its first picture: written in only for an image the identity may see.
    for image, sees in [("staff/secret", identity in ("staff",)), ("public/open", True)]:
        page = listing_text(site, identity, "/?image=" + escaped(image))[1]
        site.request("GET", f"/images/{escaped(image)}/thumbnail.jpg", site.headers("staff", image))  # at hand for the next page
        page = listing_text(site, identity, "/?image=" + escaped(image))[1]
        assert ('id="first-picture"' in page and "data:image/" in page) == sees, (identity, image)
    top = json.loads(listing_text(site, identity, "/api/images?folder=")[1])
    counts = {f["path"]: f["count"] for f in top["folders"]}
    assert ("drafts" in counts) == sees_hidden
    # public holds open.jpg and peek.jpg, a link to staff's restricted file: listed (locked), so counted.
    assert counts["public"] == 2, counts
    images = json.loads(listing_text(site, identity, "/api/images")[1])["images"]
    secret = next(i for i in images if i["id"] == "staff/secret")
    if identity in ("staff",):
        assert "width" in secret and "locked" not in secret
    else:
        assert secret.get("locked") is True and "width" not in secret and "thumbnail" not in secret, secret
    tiered = next(i for i in images if i["id"] == "works/tiered")
    # share-this is public's link here: it grants nothing in works.
    assert ("maxSize" in tiered) == (identity in ("anonymous", "share-other", "share-this")), tiered


def test_a_link_into_a_restricted_folder_gets_the_strictest_rule(site):
    for identity, want in [("anonymous", 401), ("signed-in", 403), ("share-other", 401), ("staff", 200)]:
        response, _ = site.request("GET", "/images/public%2Fpeek/tiles/8/0/0.jpg", site.headers(identity, "public/open"))
        assert response.status == want, (identity, response.status)


def test_a_folder_reached_first_through_a_link_keeps_its_rule(tmp_path):
    """`a-view` links to the hidden `secret`, and is walked first, so the images get ids under `a-view`: where the
    files really are decides, so they stay hidden, uncounted and unnamed."""
    lib = photos(tmp_path, {"secret/plan": (400, 300), "open/sky": (400, 300)})
    os.symlink("secret", lib / "a-view")
    access = tmp_path / "access.toml"
    access.write_text('[folder."secret"]\nview = "hidden"\ngroups = ["staff"]\n')
    server = Server([str(lib), "--access", str(access)])
    try:
        ids = [i["id"] for i in server.json("/api/images")["images"]]
        assert ids == ["open/sky"], ids
        assert server.get("/images/a-view%2Fplan/tiles/8/0/0.jpg")[0].status == 404
        folders = {f["path"]: f["count"] for f in server.json("/api/images?folder=")["folders"]}
        assert folders.get("a-view", 0) == 0 and "plan" not in json.dumps(server.json("/api/images?folder=a-view")), folders
    finally:
        server.stop()


def test_sign_in_failures_and_sign_out(site):
    response, body = site.request("POST", "/auth/login", {"Content-Type": "application/x-www-form-urlencoded"},
                                  "username=alice&password=wrong")
    assert response.status == 401 and response.getheader("Set-Cookie") is None
    assert b"Wrong user name or password" in body
    response, _ = site.request("POST", "/auth/login", {"Origin": "http://evil.example", "Content-Type": "application/x-www-form-urlencoded"},
                               "username=alice&password=alice-password")
    assert response.status == 403 and response.getheader("Set-Cookie") is None
    response, _ = site.request("POST", "/auth/login", {"Sec-Fetch-Site": "cross-site"}, "username=alice&password=alice-password")
    assert response.status == 403
    cookie = site.sign_in("alice", "alice-password")
    assert site.request("GET", "/api/images/staff%2Fsecret", {"Cookie": cookie})[0].status == 200
    tile = "/images/staff%2Fsecret/tiles/11/1/1.jpg"
    for _ in range(3):  # rendered, then answered from the cache by the fast path
        response, _ = site.request("GET", tile, {"Cookie": cookie})
        assert response.status == 200 and response.getheader("Cache-Control").startswith("private"), response.status
        assert response.getheader("Vary") == "Cookie, Authorization"
    response, _ = site.request("POST", "/auth/logout", {"Cookie": cookie, "Origin": "http://evil.example"})
    assert response.status == 403
    assert site.request("GET", "/api/images/staff%2Fsecret", {"Cookie": cookie})[0].status == 200
    response, _ = site.request("POST", "/auth/logout", {"Cookie": cookie})
    assert response.status == 303 and "Max-Age=0" in response.getheader("Set-Cookie")
    # Replayed after sign-out: the session is gone on the server, not only in the browser.
    assert site.request("GET", "/api/images/staff%2Fsecret", {"Cookie": cookie})[0].status == 401
    assert site.request("GET", tile, {"Cookie": cookie})[0].status == 401


def test_a_cached_tile_follows_the_users_file(tmp_path):
    """The fast path remembers each loop's last signed-in decision; a change of the user's groups, a password
    change and a removal must each be felt by the next request for a tile it has answered from memory."""
    lib = photos(tmp_path, {"staff/plan": (2200, 1500)})
    (tmp_path / "access.toml").write_text('[folder."staff"]\nview = "restricted"\ngroups = ["staff"]\n')
    users = tmp_path / "users.txt"
    tool("user", "add", "erin", "--group", "staff", "--users", str(users), stdin="erin-pw\n")
    server = Server([str(lib), "--access", str(tmp_path / "access.toml"), "--users", str(users)])
    tile = "/images/staff%2Fplan/tiles/11/1/1.jpg"

    def sign_in(password):
        conn = server.connection()
        conn.request("POST", "/auth/login", body=f"username=erin&password={password}",
                     headers={"Content-Type": "application/x-www-form-urlencoded"})
        response = conn.getresponse()
        assert response.status == 303, response.status
        return response.getheader("Set-Cookie").split(";")[0]

    def status_soon(cookie, want):
        """The tile's status once it is `want` (the users file is looked at once a second), asked on two
        connections at once so both event loops answer it."""
        deadline = time.time() + 5
        while True:
            a, b = server.connection(), server.connection()
            statuses = []
            for conn in (a, b):
                conn.request("GET", tile, headers={"Cookie": cookie})
            for conn in (a, b):
                response = conn.getresponse()
                response.read()
                statuses.append(response.status)
                conn.close()
            if statuses == [want, want] or time.time() > deadline:
                return statuses
            time.sleep(0.2)

    try:
        cookie = sign_in("erin-pw")
        for _ in range(4):  # rendered, then answered from memory by the fast path on each loop
            assert status_soon(cookie, 200) == [200, 200]
        def rewrite(text):  # whole or not at all, as `tileserver user` writes it: the server re-reads it any moment
            (tmp_path / "users.new").write_text(text)
            os.replace(tmp_path / "users.new", users)

        line = users.read_text()
        rewrite(line.replace(":staff", ":"))  # same password, no group: the session stays, its groups go
        assert status_soon(cookie, 403) == [403, 403]
        rewrite(line)
        assert status_soon(cookie, 200) == [200, 200]
        tool("user", "add", "erin", "--group", "staff", "--users", str(users), stdin="erin-new\n")
        assert status_soon(cookie, 401) == [401, 401], "a password change ends the session"
        cookie = sign_in("erin-new")
        assert status_soon(cookie, 200) == [200, 200]
        tool("user", "remove", "erin", "--users", str(users))
        assert status_soon(cookie, 401) == [401, 401], "removing the user ends the session"
    finally:
        server.stop()


def test_brute_force_is_slowed(tmp_path):
    """Five failures are free; then each attempt waits 2^(n-5) s after the last failure, or gets 429 unheard."""
    lib = photos(tmp_path, {"a": (300, 200)})
    users = str(tmp_path / "users")
    tool("user", "add", "erin", "--users", users, stdin="erin-pw\n")
    server = Server([str(lib), "--users", users])
    form = {"Content-Type": "application/x-www-form-urlencoded"}

    def attempt(body):
        conn = server.connection()
        conn.request("POST", "/auth/login", body=body, headers=form)
        response = conn.getresponse()
        response.read()
        conn.close()
        return response

    try:
        statuses = [attempt("username=carol&password=guess%d" % i).status for i in range(6)]
        assert statuses == [401] * 5 + [429], statuses
        response = attempt("username=carol&password=guess")
        assert response.status == 429 and int(response.getheader("Retry-After")) >= 1
        # The same address is slowed for every user name, even with the right password (counts per address and user).
        assert attempt("username=erin&password=erin-pw").status == 429
        time.sleep(2.2)
        assert attempt("username=erin&password=erin-pw").status == 303
    finally:
        server.stop()


def test_share_links(site):
    token, link_id, link = site.shares["staff"]
    response, body = site.request("GET", link)
    assert response.status == 200
    cookie = response.getheader("Set-Cookie")
    assert cookie.startswith("tileserver_share=") and "HttpOnly" in cookie
    jar = {"Cookie": cookie.split(";")[0]}
    assert site.request("GET", "/images/staff%2Fsecret/tiles/12/0/0.jpg", jar)[0].status == 200
    assert site.request("GET", f"/images/staff%2Fsecret/tiles/12/0/0.jpg?share={token}")[0].status == 200
    assert site.request("GET", "/api/images/drafts%2Fdraft", jar)[0].status == 404
    # An image link printed as an image (with what it grants), a folder link as a folder.
    line = tool("share", "staff/secret.jpg", "--library", str(site.lib), "--expires", "10m", "--secret-file", site.secret)
    assert line.split()[2:4] == ["image", "staff/secret"], line
    assert "/?image=staff%2Fsecret&share=" in line.split()[-1]
    image_token = urllib.parse.parse_qs(urllib.parse.urlsplit(line.split()[-1]).query)["share"][0]
    deadline = time.time() + 5  # read from the list within a second
    while time.time() < deadline and site.request("GET", f"/api/images/staff%2Fsecret?share={image_token}")[0].status != 200:
        time.sleep(0.1)
    assert site.request("GET", f"/api/images/staff%2Fsecret?share={image_token}")[0].status == 200
    assert site.request("GET", f"/api/images/staff%2Fplan?share={image_token}")[0].status in (401, 404)
    # Revoked: within a couple of seconds, a clear page; the cookie grants nothing more.
    tool("share", "--revoke", link_id, "--secret-file", site.secret)
    assert link_id in tool("share", "--list", "--secret-file", site.secret)
    deadline = time.time() + 5
    while time.time() < deadline and site.request("GET", link)[0].status == 200:
        time.sleep(0.2)
    response, body = site.request("GET", link)
    assert response.status == 410 and b"withdrawn" in body
    assert site.request("GET", "/images/staff%2Fsecret/tiles/12/0/0.jpg", jar)[0].status == 401


def test_hostile_tokens_and_paths(site):
    token = site.share("staff")[0]
    body, mac = token.rsplit(".", 1)
    parts = token.split(".")
    forged_path = ".".join([parts[0], parts[1], parts[2], "fZHJhZnRz", parts[4]])  # "drafts" under staff's MAC
    longer = ".".join([parts[0], parts[1], str(int(parts[2]) + 86400 * 365), parts[3], parts[4]])
    for bad in [token[:-3], token + "A", body + "." + mac[::-1], forged_path, longer, "s1....", "x" * 5000, "%00"]:
        response, page = site.request("GET", "/?folder=staff&share=" + urllib.parse.quote(bad, safe="%"))
        assert response.status in (403, 414, 400), (bad[:40], response.status)
        if response.status == 403:
            assert b"not valid here" in page
        response, _ = site.request("GET", "/images/staff%2Fsecret/tiles/12/0/0.jpg", {"Cookie": "tileserver_share=" + bad[:3000]})
        assert response.status == 401
    expired = site.share("staff", expires="1s")
    time.sleep(2.1)
    response, page = site.request("GET", expired[2])
    assert response.status == 410 and b"expired" in page
    # A token for another server (another key) is no token here.
    other = subprocess.run([binary(), "share", "staff", "--library", str(site.lib), "--secret-file", str(site.root / "other.key")],
                           capture_output=True, text=True).stdout
    other_token = urllib.parse.parse_qs(urllib.parse.urlsplit(other.split()[-1]).query)["share"][0]
    assert site.request("GET", "/images/staff%2Fsecret/tiles/12/0/0.jpg?share=" + other_token)[0].status == 401
    # Spellings of a restricted path: none reaches it, none is told apart from a missing image but by its rule.
    spellings = {
        "/images/staff%2Fsecret/tiles/12/0/0.jpg": 401,                 # the id itself: refused for what it is
        "/images/staff%252Fsecret/tiles/12/0/0.jpg": 404,               # double-encoded: an id with a '%2F' in it
        "/images/Staff%2Fsecret/tiles/12/0/0.jpg": 404,                 # another case: no such image
        "/images/sta%CC%81ff%2Fsecret/tiles/12/0/0.jpg": 404,           # another Unicode spelling: no such image
        "/images/staff%2F..%2Fstaff%2Fsecret/tiles/12/0/0.jpg": 400,    # dot parts inside an id
        "/images/public%2F..%2Fstaff%2Fsecret/tiles/12/0/0.jpg": 400,
        "/images/./staff%2Fsecret/tiles/12/0/0.jpg": 400,               # a dot segment
        "/images/staff/secret/tiles/12/0/0.jpg": 404,                   # plain slashes: no such route's image
    }
    for path, want in spellings.items():
        response, _ = site.request("GET", path)
        assert (response.status, response.getheader("Content-Type")) == (want, "application/json"), (path, response.status)
    # Bearer tokens that are not ours, and cookies that are not sessions.
    for headers in [{"Authorization": "Bearer nonsense"}, {"Cookie": "tileserver_session=" + "A" * 43},
                    {"Cookie": "tileserver_session=; tileserver_session=x"}, {"Authorization": "Basic YWxpY2U6YWxpY2UtcGFzc3dvcmQ="}]:
        assert site.request("GET", "/api/images/staff%2Fsecret", headers)[0].status == 401


def test_iiif_auth_flow_as_a_scripted_client(site):
    """A client following IIIF Authorization Flow 2.0: probe → access service → token service → probe again."""
    info = json.loads(site.request("GET", "/iiif/3/works%2Ftiered/info.json")[1])
    assert info["maxWidth"] == 1000 and info["width"] == 3000
    probe_service = info["service"][0]
    assert probe_service["type"] == "AuthProbeService2"
    access = probe_service["service"][0]
    assert access["type"] == "AuthAccessService2" and access["profile"] == "active"
    token_service = next(s for s in access["service"] if s["type"] == "AuthAccessTokenService2")
    logout = next(s for s in access["service"] if s["type"] == "AuthLogoutService2")
    path = lambda url: urllib.parse.urlsplit(url)._replace(scheme="", netloc="").geturl()
    probe = json.loads(site.request("GET", path(probe_service["id"]))[1])
    assert probe["type"] == "AuthProbeResult2" and probe["status"] == 401
    assert "!1000,1000" in probe["location"]["id"] and probe["substitute"]
    # The access service is our sign-in page; signing in there sets the cookie the token service reads.
    page = site.request("GET", path(access["id"]))[1].decode()
    assert 'name="username"' in page and 'name="password"' in page
    cookie = site.sign_in("alice", "alice-password")
    origin = f"http://127.0.0.1:{site.server.port}"  # the server's own: no --auth-origins
    token_page = site.request("GET", path(token_service["id"]) + "?messageId=7&origin=" + urllib.parse.quote(origin, safe=""),
                              {"Cookie": cookie})[1].decode()
    message = json.loads(re.search(r"postMessage\((\{.*\}), '", token_page).group(1))
    assert message["type"] == "AuthAccessToken2" and message["messageId"] == "7"
    assert f"'{origin.replace(':', chr(92) + 'u003a').replace('/', chr(92) + 'u002f')}'" in token_page
    bearer = {"Authorization": "Bearer " + message["accessToken"]}
    assert json.loads(site.request("GET", path(probe_service["id"]), bearer)[1])["status"] == 200
    assert json.loads(site.request("GET", path(probe_service["id"]), {**bearer, "Origin": origin})[1])["status"] == 200
    # A token made for another origin's viewer grants nothing to this one.
    assert json.loads(site.request("GET", path(probe_service["id"]), {**bearer, "Origin": "https://evil.example"})[1])["status"] == 401
    assert site.request("GET", "/iiif/3/works%2Ftiered/0,0,512,512/512,/0/default.jpg", bearer)[0].status == 200
    # Without a session the token service says so, and never posts to "*".
    denied = site.request("GET", path(token_service["id"]) + "?messageId=8&origin=" + urllib.parse.quote(origin, safe=""))[1].decode()
    assert "AuthAccessTokenError2" in denied and "'*'" not in denied
    assert site.request("GET", path(token_service["id"]) + "?messageId=8&origin=javascript:alert(1)")[0].status == 400
    site.request("POST", path(logout["id"]), {"Cookie": cookie})
    assert json.loads(site.request("GET", path(probe_service["id"]), bearer)[1])["status"] == 401


def test_metrics_count_refusals_and_name_no_one(site):
    site.request("GET", "/api/images/staff%2Fsecret")
    text = site.request("GET", "/metrics")[1].decode()
    assert re.search(r'tileserver_access_refusals_total\{reason="unauthenticated"\} [1-9]', text)
    assert re.search(r'tileserver_access_refusals_total\{reason="hidden"\} [1-9]', text)
    assert "secret" not in text and "alice" not in text and "draft" not in text


def test_the_access_log_names_the_user_or_share(tmp_path):
    photos(tmp_path, {"staff/s": (300, 200)})
    users, secret = str(tmp_path / "users"), str(tmp_path / "key")
    tool("user", "add", "dana", "--group", "staff", "--users", users, stdin="dana-pw\n")
    link = tool("share", "staff", "--library", str(tmp_path / "lib"), "--secret-file", secret).split()
    server = Server([str(tmp_path / "lib"), "--users", users, "--secret-file", secret])
    try:
        response, _ = server.get("/auth/login", method="GET")
        conn = server.connection()
        conn.request("POST", "/auth/login", body="username=dana&password=dana-pw", headers={"Content-Type": "application/x-www-form-urlencoded"})
        cookie = conn.getresponse().getheader("Set-Cookie").split(";")[0]
        conn.close()
        server.get("/api/images/staff%2Fs", {"Cookie": cookie})
        server.get(link[-1])
        server.get("/api/images/staff%2Fs")
    finally:
        _, output = server.stop()
    assert re.search(r"GET /api/images/staff%2Fs 200 \d+ \d+us - dana$", output, re.M), output[-800:]
    assert re.search(rf"GET /\?folder=staff&share=\S+ 200 \d+ \d+us - share:{link[0]}$", output, re.M), output[-800:]
    assert re.search(r"GET /api/images/staff%2Fs 200 \d+ \d+us -$", output, re.M)


def test_a_bad_access_file_is_refused_with_its_line_and_column(tmp_path):
    bad = tmp_path / "access.toml"
    bad.write_text('[folder."works"]\nmax_public_size = "big"\n')
    run = subprocess.run([binary(), "serve", "--port", "0", "--access", str(bad), str(tmp_path)], capture_output=True, text=True, timeout=30)
    assert run.returncode != 0
    assert "line 2, column 1" in run.stderr and "max_public_size must be an integer" in run.stderr, run.stderr


def test_a_changed_access_file_applies_and_a_broken_one_keeps_the_last(tmp_path):
    photos(tmp_path, {"works/a": (600, 400)})
    access = tmp_path / "access.toml"
    access.write_text("")
    server = Server([str(tmp_path / "lib"), "--access", str(access)])
    try:
        assert any("access 0 folder rules" in line for line in server.lines)
        assert server.get("/api/images/works%2Fa")[0].status == 200
        access.write_text('[folder."works"]\nview = "hidden"\ngroups = ["*"]\n')
        deadline = time.time() + 5
        while time.time() < deadline and server.get("/api/images/works%2Fa")[0].status == 200:
            time.sleep(0.2)
        assert server.get("/api/images/works%2Fa")[0].status == 404
        access.write_text('[folder."works"\n')
        time.sleep(2.5)
        assert server.get("/api/images/works%2Fa")[0].status == 404
    finally:
        _, output = server.stop()
    assert "the previous one stays in force" in output and "line 1, column" in output


def test_without_an_access_file_everything_is_public_and_says_so(tmp_path):
    server = Server([str(photos(tmp_path, {"a": (300, 200)}))])
    try:
        assert any("access off: every image is public" in line for line in server.lines), server.lines
        response, _ = server.get("/images/a/tiles/9/0/0.jpg")
        assert response.status == 200 and response.getheader("Cache-Control").startswith("public")
    finally:
        server.stop()


def test_proxy_headers_are_believed_only_from_trusted_addresses(tmp_path):
    photos(tmp_path, {"staff/s": (300, 200)})
    access = tmp_path / "access.toml"
    access.write_text('[folder."staff"]\nview = "restricted"\ngroups = ["staff"]\n')
    for trusted, want in [("127.0.0.1", 200), ("10.0.0.0/8", 401)]:
        server = Server([str(tmp_path / "lib"), "--access", str(access), "--trusted-proxies", trusted,
                         "--user-header", "X-Remote-User", "--groups-header", "X-Remote-Groups", "--metrics-from", "10.1.2.3"])
        try:
            proxy = {"X-Remote-User": "carol", "X-Remote-Groups": "readers, staff"}
            response, _ = server.get("/api/images/staff%2Fs", proxy)
            assert response.status == want, (trusted, response.status)
            assert server.get("/metrics")[0].status == 403
            refusal = json.loads(server.get("/iiif/3/staff%2Fs/info.json")[1])
            service = refusal["service"][0]["service"][0]
            assert service["profile"] == "external" and server.get(urllib.parse.urlsplit(service["id"]).path)[0].status == 200
            own = urllib.parse.quote(f"http://127.0.0.1:{server.port}", safe="")
            page = server.get(f"/auth/token?messageId=1&origin={own}", proxy)[1].decode()
            assert ("AuthAccessToken2" in page) == (want == 200), page
        finally:
            server.stop()


def test_cookies_are_secure_only_when_a_trusted_proxy_says_tls(tmp_path):
    lib = photos(tmp_path, {"a": (300, 200)})
    users = str(tmp_path / "users")
    tool("user", "add", "fred", "--users", users, stdin="fred-pw\n")
    for trusted, proto, secure in [("127.0.0.1", "https", True), ("127.0.0.1", "http", False), ("10.0.0.0/8", "https", False)]:
        server = Server([str(lib), "--users", users, "--trusted-proxies", trusted])
        try:
            conn = server.connection()
            conn.request("POST", "/auth/login", body="username=fred&password=fred-pw",
                         headers={"Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-Proto": proto})
            cookie = conn.getresponse().getheader("Set-Cookie")
            conn.close()
            assert ("; Secure" in cookie) == secure, (trusted, proto, cookie)
            assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/" in cookie
        finally:
            server.stop()


def test_a_refusal_says_who_is_signed_in_and_what_is_missing(site):
    """Issue 60, item 4: a signed-in user outside the group was told "Not signed in, or this account may not see it"."""
    response, body = site.request("GET", "/api/images/staff%2Fsecret", site.headers("signed-in"))
    assert response.status == 403
    assert json.loads(body)["error"] == "signed in as bob; image 'staff/secret' is for the staff group", body
    response, body = site.request("GET", "/auth/probe/staff%2Fsecret", site.headers("signed-in"))
    probe = json.loads(body)
    assert probe["status"] == 403 and probe["note"] == {"none": ["Signed in as bob; this image is for the staff group"]}, probe
    response, body = site.request("GET", "/auth/probe/staff%2Fsecret")
    assert json.loads(body)["status"] == 401 and "note" not in json.loads(body), "nothing about anyone to who is not signed in"


def test_listings_lock_folders_and_say_who_may_sign_in(site):
    """Issue 60, item 4: the grid's locks and account button come from the listing: a folder for a group the
    identity is not in carries `locked` and why (`note`), a locked image says who is signed in and which group it
    is for, and a listing names the signed-in user or, to anyone else, where to sign in."""
    def top(identity):
        listing = json.loads(listing_text(site, identity, "/api/images?folder=")[1])
        return listing, {f["path"]: f.get("note") for f in listing["folders"] if f.get("locked")}
    listing, locked = top("anonymous")
    assert listing["login"] == "/auth/login" and "user" not in listing
    assert locked == {"staff": "sign in to see this folder"}, locked      # works is tiered: open, not locked
    listing, locked = top("signed-in")
    assert listing["user"] == "bob" and "login" not in listing
    assert locked == {"staff": "signed in as bob; this folder is for the staff group"}, locked
    listing, locked = top("staff")
    assert listing["user"] == "alice" and locked == {}, locked
    staff = json.loads(listing_text(site, "signed-in", "/api/images?folder=staff")[1])["images"]
    assert [i.get("note") for i in staff] == ["signed in as bob; 'secret' is for the staff group"], staff
    staff = json.loads(listing_text(site, "anonymous", "/api/images?folder=staff")[1])["images"]
    assert [i.get("locked") for i in staff] == [True] and "note" not in staff[0], staff
    ordered = json.loads(listing_text(site, "signed-in", "/api/images?folder=staff&sort=taken")[1])["images"]
    assert [i.get("note") for i in ordered] == ["signed in as bob; 'secret' is for the staff group"], ordered
