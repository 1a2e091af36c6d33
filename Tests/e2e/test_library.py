"""The live image library against the real binary on real folders: recursion and ids, files added, removed and
replaced while serving (seen within a second), encoded ids in every protocol, and paging through 100,000 images."""
import os
from pathlib import Path
import shutil
import time
import urllib.parse

import pytest
from PIL import Image

from conftest import FIXTURES, Server

Q = urllib.parse.quote


def metric(server, name):
    _, body = server.get("/metrics")
    for line in body.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"no metric {name}")


def listed(server, **query):
    """Every id of the listing, following `next` URLs."""
    url, ids = "/api/images?" + urllib.parse.urlencode({"limit": 10000, **query}), []
    while url:
        page = server.json(url)
        ids += [image["id"] for image in page["images"]]
        url = page.get("next")
    return ids


def within(seconds, condition):
    """Polls `condition` until it holds; returns how long that took, or fails after `seconds`."""
    started = time.monotonic()
    while True:
        if condition():
            return time.monotonic() - started
        if time.monotonic() - started > seconds:
            raise AssertionError(f"not within {seconds} s")
        time.sleep(0.02)


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "photos"
    for folder in ("2024/iceland", "2024/rome", "My Trip", ".thumbnails"):
        (root / folder).mkdir(parents=True)
    shutil.copy(FIXTURES / "baseline.jpg", root / "2024/iceland/glacier.jpg")
    shutil.copy(FIXTURES / "rgb.png", root / "2024/iceland/glacier.png")
    shutil.copy(FIXTURES / "gray.jpg", root / "2024/rome/forum.jpg")
    shutil.copy(FIXTURES / "baseline.jpg", root / "My Trip/day one.jpg")
    shutil.copy(FIXTURES / "baseline.jpg", root / ".thumbnails/hidden.jpg")
    shutil.copy(FIXTURES / "baseline.jpg", root / ".glacier.jpg.tmp-1234")
    shutil.copy(FIXTURES / "baseline.jpg", root / "download.jpg.part")
    shutil.copy(FIXTURES / "tiny-1x1.png", root / "top.png")
    (root / "2024/loop").symlink_to("..")
    (root / "elsewhere").symlink_to(root / "2024/rome")
    return root


@pytest.fixture
def served(tree, tmp_path):
    server = Server([str(tree), "--access-log", "off", "--raster-dir", str(tmp_path)])
    yield server, tree
    server.stop()


def test_folders_are_walked_recursively_with_path_ids(served):
    server, _ = served
    assert listed(server) == ["2024/iceland/glacier", "2024/iceland/glacier.png", "2024/rome/forum", "my-trip/day-one", "top"]
    top = server.json("/api/images?folder=")
    assert [i["id"] for i in top["images"]] == ["top"]
    assert [(f["path"], f["count"]) for f in top["folders"]] == [("2024", 3), ("my-trip", 1)]
    assert [f["path"] for f in server.json("/api/images?folder=2024")["folders"]] == ["2024/iceland", "2024/rome"]
    assert server.get("/api/images?folder=nowhere")[0].status == 404
    # The PNG clashing with the JPEG of the same name keeps its extension; both are served.
    for image in ("2024/iceland/glacier", "2024/iceland/glacier.png"):
        assert server.get(f"/images/{Q(image, safe='')}/tiles/0/0/0.jpg")[0].status == 200


def test_files_added_removed_and_replaced_show_within_a_second(served, tmp_path):
    server, tree = served
    # Added: a file copied in, and a new folder with one.
    shutil.copy(FIXTURES / "rgba.png", tree / "2024/rome/arch.png")
    print("added:", within(1.0, lambda: "2024/rome/arch" in listed(server)))
    (tree / "2025/spring").mkdir(parents=True)
    shutil.copy(FIXTURES / "gray.jpg", tree / "2025/spring/bud.jpg")
    print("new folder:", within(1.0, lambda: "2025/spring/bud" in listed(server)))
    assert server.json("/api/images?folder=2025")["folders"][0]["count"] == 1

    # Removed: its tiles become 404 and its cache entries are released.
    forum = "/images/" + Q("2024/rome/forum", safe="")
    for level in range(9):
        assert server.get(f"{forum}/tiles/{level}/0/0.jpg")[0].status == 200
    cached = metric(server, "tileserver_tile_cache_entries")
    stored = Path(server.store) / "2024%2Frome%2Fforum"
    assert metric(server, "tileserver_store_bytes") > 0 and stored.is_dir(), "levels 0 to 8 of the forum were stored by its passes"
    os.remove(tree / "2024/rome/forum.jpg")
    print("removed:", within(1.0, lambda: server.get(f"{forum}/tiles/0/0/0.jpg")[0].status == 404))
    assert "2024/rome/forum" not in listed(server)
    assert server.get("/api/images/" + Q("2024/rome/forum", safe=""))[0].status == 404
    assert metric(server, "tileserver_tile_cache_entries") <= cached - 9
    within(1.0, lambda: not stored.exists())

    # Replaced (renamed over, as editors and rsync do): a new version and new tiles, never the old ones.
    glacier = "/api/images/" + Q("2024/iceland/glacier", safe="")
    old = server.json(glacier)
    _, old_tile = server.get(old["tiles"].replace("{z}/{x}/{y}", "9/0/0"))
    Image.open(FIXTURES / "baseline.jpg").transpose(Image.Transpose.FLIP_TOP_BOTTOM).save(tmp_path / "next.jpg", quality=90)
    os.replace(tmp_path / "next.jpg", tree / "2024/iceland/glacier.jpg")
    print("replaced:", within(1.0, lambda: server.json(glacier)["version"] != old["version"]))
    new = server.json(glacier)
    response, new_tile = server.get(new["tiles"].replace("{z}/{x}/{y}", "9/0/0"))
    assert response.status == 200 and new_tile != old_tile
    assert server.get(old["tiles"].replace("{z}/{x}/{y}", "9/0/0"))[0].status == 307

    # A folder removed whole takes its images with it.
    shutil.rmtree(tree / "2025")
    within(1.0, lambda: not any(i.startswith("2025/") for i in listed(server)))
    assert server.get("/api/images?folder=2025")[0].status == 404


def test_a_file_being_written_is_listed_once_complete(served):
    server, tree = served
    data = (FIXTURES / "baseline.jpg").read_bytes()
    with open(tree / "2024/slow.jpg", "wb") as f:
        f.write(data[: len(data) // 2])
        f.flush()
        time.sleep(1.2)
        assert "2024/slow" not in listed(server), "half a file is not an image yet"
        f.write(data[len(data) // 2:])
    print("complete:", within(1.0, lambda: "2024/slow" in listed(server)))
    assert server.get("/images/" + Q("2024/slow", safe="") + "/tiles/8/0/0.jpg")[0].status == 200


def test_without_events_a_rescan_finds_changes(tree, tmp_path):
    server = Server([str(tree), "--access-log", "off", "--watch", "off", "--rescan-interval", "0.5",
                     "--raster-dir", str(tmp_path)])
    try:
        shutil.copy(FIXTURES / "gray.jpg", tree / "late.jpg")
        print("rescan:", within(2.0, lambda: "late" in listed(server)))
        os.remove(tree / "top.png")
        within(2.0, lambda: "top" not in listed(server))
    finally:
        server.stop()


def test_encoded_ids_work_in_every_protocol(served):
    server, _ = served
    image = server.json("/api/images/2024%2Ficeland%2Fglacier")
    assert image["id"] == "2024/iceland/glacier" and image["folder"] == "2024/iceland"
    enc = "2024%2Ficeland%2Fglacier"
    assert image["dzi"].startswith(f"/images/{enc}.dzi?v=")
    assert image["iiif"] == f"/iiif/3/{enc}@{image['version']}/info.json"
    assert image["manifest"] == f"/iiif/manifest/{enc}"
    for path in (image["tiles"].replace("{z}/{x}/{y}", "9/1/0"), image["dzi"], f"/images/{enc}_files/9/1_0.jpg",
                 image["iiif"], f"/iiif/3/{enc}/0,0,256,256/256,/0/default.jpg", image["thumbnail"], image["manifest"],
                 f"/api/images/{enc}/viewport?width=640&height=480", f"/api/images/{enc}/viewport.jpg?width=64&height=64",
                 f"/api/images/{enc}/zoomrect?width=640&height=480&zoom=0.1&x=10&y=10", image["collection"]):
        response, _ = server.get(path)
        assert response.status == 200, path
    thumb = Image.open(__import__("io").BytesIO(server.get(image["thumbnail"])[1]))
    assert max(thumb.size) <= 256 and max(thumb.size) > 128, thumb.size
    info = server.json(image["iiif"])
    assert info["id"].endswith(f"/iiif/3/{enc}@{image['version']}")
    # Encoded slashes are refused everywhere else, and never smuggle '..' into an id.
    for path in ("/api%2Fimages", "/images/2024%2F..%2Ficeland/tiles/0/0/0.jpg", "/index.html%2Fx"):
        assert server.get(path)[0].status == 400, path


def test_paging_through_100000_images(tmp_path):
    """100,000 links in 1,000 folders: quick to start, every image listed once in path order, memory bounded.
    (bench/library.sh prints the same figures for a release build; the bounds here are loose for a debug one.)"""
    root = tmp_path / "archive"
    targets = [FIXTURES / name for name in ("baseline.jpg", "gray.jpg", "rgb.png", "progressive.jpg")]
    for f in range(1000):
        folder = root / f"{f // 100:02d}" / f"box-{f:04d}"
        folder.mkdir(parents=True)
        for i in range(100):
            target = targets[(f + i) % 4]
            os.symlink(target, folder / f"scan-{i:03d}{target.suffix}")
    started = time.monotonic()
    server = Server([str(root), "--access-log", "off", "--raster-dir", str(tmp_path)])
    try:
        within(30, lambda: server.get("/healthz")[0].status == 200)
        ready = time.monotonic() - started
        started = time.monotonic()
        ids = listed(server)
        paging = time.monotonic() - started
        rss = int(next(l for l in open(f"/proc/{server.process.pid}/status") if l.startswith("VmRSS")).split()[1]) // 1024
        print(f"100,000 images: /healthz after {ready:.2f} s, paged in {paging:.1f} s, RSS {rss} MB after listing")
        assert len(ids) == 100_000 and len(set(ids)) == 100_000 and ids == sorted(ids)
        assert ids[0] == "00/box-0000/scan-000" and ids[-1] == "09/box-0999/scan-099"
        page = server.json("/api/images?limit=1000")
        assert len(page["images"]) == 1000 and page["next"]
        assert server.json("/api/images?limit=1")["images"][0]["width"] > 0
        folder = server.json("/api/images?folder=05%2Fbox-0500")
        assert len(folder["images"]) == 100 and "next" not in folder
        assert [(f["path"], f["count"]) for f in server.json("/api/images?folder=")["folders"]][:2] == [("00", 10_000), ("01", 10_000)]
        assert ready < 20 and rss < 300
    finally:
        server.stop()
