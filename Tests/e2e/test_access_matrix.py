"""The leak matrix generated from the route table (`tileserver routes`), not listed by hand: every route that names
an image or a folder, with values for each of its captures (IIIF's one-axis sizes, thin regions, `pct:`, `^` and
`square` among them), every method, each identity. A route whose captures the matrix has no values for fails it,
and so does a route it did not reach: a new door is tried the day it is added. Then the attacks of issue 58 that
are not one URL: paging cursors, search counts and orders."""
import base64
import io
import json
import urllib.parse

import pytest
from PIL import Image

from test_access import DEFAULT, IDENTITIES, IMAGES, SIZES, Site, escaped, tool

GHOST = "nowhere/ghost"
HIDDEN = "drafts/draft"
LIMIT = 1000  # works' max_public_size
METHODS = ["GET", "HEAD", "POST"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    s = Site(tmp_path_factory.mktemp("matrix"))
    yield s
    s.stop()


def routes():
    return [json.loads(line) for line in tool("routes").splitlines()]


def top_level(image):
    w, h = SIZES.get(image, SIZES[DEFAULT])
    return (max(w, h) - 1).bit_length()  # DeepZoom's full-size level: ceil(log2(max(w, h)))


def capture_values(image):
    """Values for each capture name the table uses, by variant: the i-th variant takes the i-th value of each
    (the last repeated). Regions and sizes hold the one-axis attacks on a tiered image."""
    w, h = SIZES.get(image, SIZES[DEFAULT])
    top = top_level(image)
    return {
        "z": [str(top), str(top - 3), str(top), "99", "x"],
        "x": ["0", "0", "1", "0", "0"],
        "y": ["0", "0", "1", "0", "0"],
        "name": ["thumbnail.jpg", "thumbnail.png", "nope"],
        "xy": ["0_0.jpg", "1_1.png", "0_0.webp", "bad"],
        "region": ["full", "0,0,512,512", "full", f"0,0,{w},100", "pct:0,0,100,100", "square", "full", "full", "full", "full"],
        "size": ["max", "512,", f"1000,{h}", "1000,100", "pct:50", "^1000,", "^max", "!1000,1000", "1000,", "^pct:200"],
        "rotation": ["0", "0", "0", "0", "90", "0", "0", "0", "0", "0"],
        "qf": ["default.jpg", "default.png", "default.jpg", "default.jpg", "gray.webp", "default.jpg", "default.jpg", "default.jpg",
               "default.jpg", "default.gif"],
    }


QUERIES = {
    "viewport": ["width=800&height=600", "width=800&height=600&zoom=1", "width=800&height=600&zoom=max&dpr=3"],
    "zoomrect": ["width=800&height=600&zoom=fit&x=100&y=100", "width=800&height=600&rect=0,0,100,100", "width=8&height=6"],
    "viewport_image": ["width=800&height=600", "width=800&height=600&zoom=1", "width=3000&height=100&zoom=0.5", "width=0&height=1"],
}


def id_forms(form, image):
    e = escaped(image)
    # `_filez` names another id (no such image): it must be as missing for the hidden one as for any.
    return {"plain": [e], "versioned": [e, e + "%40stale"], "descriptor": [e + ".dzi", e],
            "deep_zoom_files": [e + "_files", e + "_filez"]}[form]


def image_paths(route, image):
    """Every request path the matrix makes of `route` for `image`."""
    values = capture_values(image)
    captures = [part[1:] for part in route["pattern"] if part[0] in ":*" and part[1:] != route.get("capture")]
    unknown = [c for c in captures if c not in values]
    assert not unknown, f"route {route['pattern']} captures {unknown}, which the leak matrix has no values for: add them"
    count = max([len(values[c]) for c in captures] + [1])
    paths = []
    for i in range(count):
        for named in id_forms(route.get("form", "plain"), image) if route.get("capture") else [None]:
            parts = []
            for part in route["pattern"]:
                if part[0] in ":*":
                    name = part[1:]
                    parts.append(named if name == route.get("capture") else values[name][min(i, len(values[name]) - 1)])
                else:
                    parts.append(part)
            base = "/" + "/".join(parts)
            for query in QUERIES.get(route["name"], [""]):
                paths.append(base + ("?" + query if query else ""))
    return sorted(set(paths))


def granted(image, identity):
    cls = IMAGES[image]
    if cls == "public" or identity == "staff":
        return True
    return identity == "share-this" or (cls == "tiered" and identity == "signed-in")


def magnification(path, body):
    """How many output pixels per image pixel a picture answer shows, on its most magnified axis, as far as the
    path tells its region; nil when the path does not say."""
    image = Image.open(io.BytesIO(body))
    out_w, out_h = image.size
    w, h = SIZES["works/tiered"]
    parts = urllib.parse.urlsplit(path).path.split("/")
    if parts[1] == "iiif" and len(parts) == 8:
        region = parts[4]
        rw, rh = {"full": (w, h), "square": (min(w, h), min(w, h)), "pct:0,0,100,100": (w, h)}.get(region, (None, None))
        if rw is None:
            rw, rh = [int(v) for v in region.split(",")[2:]]
        if parts[6] in ("90", "270"):
            out_w, out_h = out_h, out_w
        return max(out_w / rw, out_h / rh)
    if "tiles" in parts or any(p.endswith("_files") for p in parts):
        level = int(parts[-3] if "tiles" in parts else parts[-2])
        return 2.0 ** (level - top_level("works/tiered"))
    return None


def test_the_generated_matrix(site):
    table = routes()
    reached, problems = set(), []
    named = [r for r in table if r.get("capture")]
    assert {r["name"] for r in named} >= {"tile", "original", "zoomrect", "viewport_image", "iiif_image", "auth_probe"} - {"auth_probe"}
    for route in table:
        if route["access"] not in ("image", "default_image", "open", "listing", "metrics"):
            problems.append(f"{route['pattern']}: an access kind the matrix does not know: {route['access']}")
        if not route.get("capture") and route["access"] != "default_image":
            continue
        for image in IMAGES:
            for path in image_paths(route, image):
                ghost_path = path.replace(escaped(image), escaped(GHOST))
                for identity in IDENTITIES:
                    headers = site.headers(identity, image)
                    for method in METHODS:
                        response, body = site.request(method, path, headers)
                        reached.add(tuple(route["pattern"]))
                        where = f"{method} {path} as {identity}"
                        status = response.status
                        if route["access"] == "default_image":
                            if not granted(DEFAULT, identity) and (status not in (404, 405) or b"draft" in body):
                                problems.append(f"{where}: the hidden first image shows ({status}, {body[:80]!r})")
                            continue
                        if image == HIDDEN and not granted(image, identity):
                            ghost, ghost_body = site.request(method, ghost_path, headers)
                            if (ghost.status, ghost_body.replace(GHOST.encode(), image.encode())) != (status, body):
                                problems.append(f"{where}: hidden answers {status} {body[:80]!r}, missing {ghost.status} {ghost_body[:80]!r}")
                        if route["access"] != "image" or method == "POST":
                            continue
                        if IMAGES[image] == "restricted" and not granted(image, identity) and "_filez" not in path:
                            want = 403 if identity == "signed-in" else 401
                            if status != want:
                                problems.append(f"{where}: {status}, expected the refusal {want}")
                        if IMAGES[image] == "tiered" and not granted(image, identity) and status == 200 and method == "GET":
                            if route["name"] in ("original", "raw"):
                                problems.append(f"{where}: the original of a tiered image")
                            kind = response.getheader("Content-Type") or ""
                            if kind.startswith("image/"):
                                scale = magnification(path, body)
                                allowed = LIMIT / max(SIZES[image])
                                if scale is not None and scale > allowed * 1.01 + 0.002:
                                    problems.append(f"{where}: {scale:.3f} output px per image px, past {allowed:.3f}")
                                if scale is None and route["name"] == "viewport_image" and "zoom=1" in path:
                                    problems.append(f"{where}: a view at full size")
    unreached = [r["pattern"] for r in table if (r.get("capture") or r["access"] == "default_image") and tuple(r["pattern"]) not in reached]
    assert not unreached, f"routes the leak matrix did not reach: {unreached}"
    assert not problems, "\n".join(problems[:30]) + f"\n({len(problems)} in all)"


@pytest.mark.parametrize("identity", ["anonymous", "signed-in", "share-other"])
def test_one_axis_sizes_of_a_tiered_image_are_refused(site, identity):
    """Issue 58 item 2: only the width's scale was checked."""
    e, (w, h) = escaped("works/tiered"), SIZES["works/tiered"]
    for attack in [f"full/1000,{h}", f"0,0,{w},100/1000,100", "pct:0,0,100,10/1000,200", f"full/^1000,{h}", "square/1000,1000",
                   "square/999,999", f"0,0,{w},1/{LIMIT},1", "full/pct:50", "full/^pct:40", "0,0,1,1/1,1"]:
        response, _ = site.request("GET", f"/iiif/3/{e}/{attack}/0/default.png", site.headers(identity, "works/tiered"))
        assert response.status == (200 if identity == "signed-in" else 401), (attack, response.status)
    # The public size itself, the long side at the limit, is served.
    response, body = site.request("GET", f"/iiif/3/{e}/full/{LIMIT},/0/default.png", site.headers(identity, "works/tiered"))
    assert response.status == 200 and Image.open(io.BytesIO(body)).size == (LIMIT, round(h * LIMIT / w))


def cursor_ids(link):
    after = urllib.parse.parse_qs(urllib.parse.urlsplit(link).query).get("after", [""])[0]
    return base64.urlsafe_b64decode(after + "=" * (-len(after) % 4)).decode()


@pytest.mark.parametrize("identity", IDENTITIES)
def test_paging_never_names_or_betrays_what_is_hidden(site, identity):
    """Issue 58 item 1: `next` carried the last id of the unfiltered page."""
    sees_hidden = identity == "staff"
    folders = [None, "", "public", "works", "staff", "drafts"]
    for folder in folders:
        for limit in (1, 2):
            query = f"limit={limit}" + ("" if folder is None else "&folder=" + urllib.parse.quote(folder, safe=""))
            link, ids, pages = "/api/images?" + query, [], 0
            while link:
                response, body = site.request("GET", link, site.headers(identity, "public/open"))
                if folder == "drafts" and not sees_hidden:
                    assert response.status == 404 and b"drafts/" not in body, body
                    break
                assert response.status == 200, (link, response.status)
                page = json.loads(body)
                pages += 1
                assert page["images"] or pages == 1, f"an empty page after a cursor: {link}"
                ids += [i["id"] for i in page["images"]]
                link = page.get("next")
                if link:
                    assert "draft" not in cursor_ids(link) or sees_hidden, (identity, link, cursor_ids(link))
                assert pages < 20
            assert sees_hidden or not any(i.startswith("drafts/") for i in ids), (identity, folder, ids)
            if folder is None:
                everything = json.loads(site.request("GET", "/api/images", site.headers(identity, "public/open"))[1])["images"]
                assert ids == [i["id"] for i in everything], (identity, limit)
                assert pages == max(1, -(-len(ids) // limit)), (identity, limit, pages, ids)


@pytest.mark.parametrize("identity", IDENTITIES)
def test_search_counts_and_orders_only_what_may_be_known(site, identity):
    """Issue 58 item 5 and `sort=taken`: totals counted every image; locked images were placed by hidden dates."""
    listed = json.loads(site.request("GET", "/api/images", site.headers(identity, "public/open"))[1])["images"]
    for q in ["?q=e", "?q=draft", "?sort=taken", "?sort=added&order=desc", "?sort=name"]:
        response, body = site.request("GET", "/api/images" + q, site.headers(identity, "public/open"))
        assert response.status == 200
        found = json.loads(body)
        assert found["indexing"]["total"] == len(listed), (identity, q, found["indexing"], len(listed))
        if identity != "staff":
            assert b"drafts" not in body, (identity, q)
        if "sort=taken" in q or "sort=added" in q:
            # Locked images come last, by name: their dates are not the asker's to sort by.
            locked = [i["id"] for i in found["images"] if i.get("locked")]
            assert [i["id"] for i in found["images"][len(found["images"]) - len(locked):]] == locked, (identity, q, found["images"])
