"""A store of masters far away (store_proxy.py in front of SeaweedFS, each request held 20 ± 5 ms): a restarted
replica opens a pyramidal TIFF from the structure the first one kept beside the tiles, in one GET and none of the
master, and with reads ahead on fetches the blocks the one before read as it opens; reads ahead start with the first
zoom (the store's distance known from the start's and the opens' GETs); a master replaced in the store
is never read through its old structure; reads ahead of the viewer stay within --object-cache-mb; a region's
stored tiles are read from a shared store together, not one after another; and a store that hangs keeps no local
master's tile waiting."""
import math
import re
import shutil
import subprocess
import threading
import time
from collections import Counter

import pytest
import tifffile

from conftest import FIXTURES, Server
from store_proxy import StallingProxy
from test_object_storage import metrics, percentile, store, wait_for  # noqa: F401 (store: the SeaweedFS fixture)

GALLERY = FIXTURES.parent / "gallery"


@pytest.fixture(scope="module")
def pyramids(tmp_path_factory):
    """Two pyramidal TIFFs (libvips, JPEG tiles) of different sizes: the gallery's photo doubled, and times 1.5."""
    out = tmp_path_factory.mktemp("pyramids")
    for name, scale in (("double.tif", "2"), ("other.tif", "1.5")):
        subprocess.run(["vips", "resize", str(GALLERY / "large.jpg"), str(out / "scaled.v"), scale], check=True)
        subprocess.run(["vips", "tiffsave", str(out / "scaled.v"), str(out / name), "--tile", "--pyramid", "--compression", "jpeg",
                        "--Q", "85", "--tile-width", "256", "--tile-height", "256"], check=True)
    (out / "scaled.v").unlink()
    return out


def gets(proxy):
    """(target, range) of every GET sent through the proxy so far."""
    sent = "\n".join(c.decode("latin-1") for c in proxy.sent)
    return [(target, rng) for target, rng in
            re.findall(r"^GET (\S+) HTTP/1\.1\r\n(?:(?:[Rr]ange: bytes=(\S+)|[^\r]*)\r\n)*?\r\n", sent, re.M)]


def since(proxy, before):
    """The GETs sent since `before` (what `gets` gave then): connections are reused, so counted, not sliced."""
    return list((Counter(gets(proxy)) - Counter(before)).elements())


def far(store, location, *args, proxy):
    return Server([location, "--access-log", "off", "--rescan-interval", "1", *args],
                  env=store.env(f"http://127.0.0.1:{proxy.port}"))


def top_level(info):
    return math.ceil(math.log2(max(info["width"], info["height"])))


def test_a_restarted_replica_opens_a_tiff_master_from_its_kept_structure(store, pyramids):
    store.make_bucket("kept")
    store.put("kept", "set/double.tif", file=pyramids / "double.tif")
    proxy = StallingProxy(store.s3, delay=0.02, jitter=0.005)
    args = ("--store-dir", "s3://kept/tiles", "--object-prefetch", "off")
    first = far(store, "s3://kept/set", *args, proxy=proxy)
    try:
        info = first.json("/iiif/3/double/info.json")
        cold = [g for g in gets(proxy) if g[0] == "/kept/set/double.tif"]
        wait_for(lambda: store.keys("kept", "tiles/object-structures/"), what="the structure kept in the store")
        tile = first.get(f"/images/double_files/{top_level(info)}/3_2.jpg")[1]
    finally:
        first.stop()
    # Cold, the master's head, its last MB (directories) and its first level's directory were read.
    assert len(cold) >= 2, cold
    mark = gets(proxy)
    second = far(store, "s3://kept/set", *args, proxy=proxy)
    try:
        again = second.json("/iiif/3/double/info.json")
        assert [again[k] for k in ("width", "height", "sizes", "tiles")] == [info[k] for k in ("width", "height", "sizes", "tiles")]
        opening = since(proxy, mark)
        assert [g for g in opening if g[0] == "/kept/set/double.tif"] == [], opening
        # One GET of the structure (and a listing of the store's structures at start, which names it).
        kept = [k.split("/")[-1] for k in store.keys("kept", "tiles/object-structures/") if k.endswith(".tsos")]
        assert [g[0] for g in opening if "object-structures" in g[0] and "list-type" not in g[0]] == [
            "/kept/tiles/object-structures/" + kept[0]], opening
        # A tile now costs the GET of its own block, not its level's directory: the same bytes as before.
        mark = gets(proxy)
        assert second.get(f"/images/double_files/{top_level(info)}/3_2.jpg")[1] == tile
        reads = [g for g in since(proxy, mark) if g[0] == "/kept/set/double.tif"]
        assert 1 <= len(reads) <= 2, reads
    finally:
        second.stop()
    # What the tile was read from was kept as the server stopped, its bytes with it, beside the structure and in
    # one bundle of everything read: with reads ahead on, a third server takes the bundle beside the listing of the
    # structures as it starts, and then neither opening the master nor the tile asks the master or the store.
    assert [k for k in store.keys("kept", "tiles/object-structures/") if k.endswith(".reads")]
    mark = gets(proxy)
    third = far(store, "s3://kept/set", "--store-dir", "s3://kept/tiles", proxy=proxy)
    try:
        assert third.get(f"/images/double_files/{top_level(info)}/3_2.jpg")[1] == tile
        assert [g for g in since(proxy, mark) if g[0] == "/kept/set/double.tif"] == [], since(proxy, mark)
        assert [g[0] for g in since(proxy, mark) if "object-structures" in g[0] and "list-type" not in g[0]] == [
            "/kept/tiles/object-structures/last-run.bundle"], since(proxy, mark)
    finally:
        third.stop()
        proxy.close()


def test_a_cold_pyramidal_tiff_far_away_opens_in_one_round_of_gets(store, pyramids):
    """libvips puts each level's directory after the level's data: read one by one, the directories are a chain of
    round trips. Opening the master sends every GET the open needs in one round instead: its head beside its end,
    where the reduced levels and their directories are."""
    store.make_bucket("opening")
    store.put("opening", "set/double.tif", file=pyramids / "double.tif")
    delay = 0.25
    proxy = StallingProxy(store.s3, delay=delay)
    server = far(store, "s3://opening/set", "--store-dir", "off", proxy=proxy)
    try:
        info = server.json("/iiif/3/double/info.json")
        assert info["width"] == 7992
        times = [t for t, first in proxy.arrivals if first.startswith(b"GET /opening/set/double.tif ")]
        assert len(times) >= 2, proxy.arrivals
        assert [round(t - times[0], 3) for t in times if t - times[0] > delay / 2] == [], "GETs that waited for others"
    finally:
        server.stop()
        proxy.close()


def ranges_sent(proxy, path, since_time):
    """(first, last) byte of each ranged GET of `path` that reached the proxy since `since_time`, and when."""
    found = []
    for at, head in proxy.arrivals:
        text = head.decode("latin-1")
        if at >= since_time and text.startswith(f"GET {path} "):
            rng = re.search(r"^[Rr]ange: bytes=(\d+)-(\d+)\r$", text, re.M)
            if rng:
                found.append((at, int(rng[1]), int(rng[2])))
    return found


def test_a_master_whose_head_the_index_read_opens_with_its_directories_and_end_only(store, pyramids):
    """The search index reads every master's head at start: an open that then knows where the first directory is
    (libvips puts it after the full level's data, about a third of the file from its end) fetches that directory
    and the object's last 15 % (the later directories, after each level's data, and the small levels) in one round,
    not the last 40 % an open that does not know it fetches; the full level's reduction follows after the answer."""
    store.make_bucket("known")
    store.put("known", "set/double.tif", file=pyramids / "double.tif")
    size = (pyramids / "double.tif").stat().st_size
    with tifffile.TiffFile(pyramids / "double.tif") as tif:
        first, second = tif.pages[0].offset, tif.pages[1].offset
    master, delay = "/known/set/double.tif", 0.25
    proxy = StallingProxy(store.s3, delay=delay)
    server = far(store, "s3://known/set", "--store-dir", "off", "--object-prefetch", "off", proxy=proxy)
    try:
        wait_for(lambda: ranges_sent(proxy, master, 0), what="the index's read of the master's head")
        time.sleep(2 * delay)
        asked = time.monotonic()
        info = server.json("/iiif/3/double/info.json")
        took = time.monotonic() - asked
        assert info["width"] == 7992
        gets_sent = ranges_sent(proxy, master, asked)
        round_one = [(a, b) for at, a, b in gets_sent if at - asked < delay / 2]
        assert round_one and all(a > 0 for a, _ in round_one), f"the head was fetched again: {round_one}"
        assert any(a <= first <= b for a, b in round_one), f"the first directory ({first}) was not in the first round: {round_one}"
        middle = (first + second) // 2
        assert not any(a <= middle <= b for a, b in round_one), f"the first round fetched the full level's reduction: {round_one}"
        fetched = sum(b - a + 1 for a, b in round_one)
        assert fetched < 0.3 * size, f"{fetched} bytes of {size} in the first round: {round_one}"
        assert took < 1.7 * delay, f"the open took {took:.3f} s behind a store {delay} s away: more than one round trip"
        # The full level's reduction follows in the background, from the first directory on.
        later = wait_for(lambda: [(a, b) for at, a, b in ranges_sent(proxy, master, asked) if at - asked >= delay / 2],
                         what="the rest of the reduced levels fetched after the open")
        assert any(a <= middle <= b for a, b in later), later
    finally:
        server.stop()
        proxy.close()


def test_the_index_reads_the_heads_of_masters_far_away_together(store):
    """Behind a store 0.2 s away, the search index's reads of eight masters' heads go out together, not one round
    trip after another (a round trip each, a thousand masters 20 ms away would take 20 s)."""
    store.make_bucket("heads")
    for i in range(8):
        store.put("heads", f"set/photo-{i}.jpg", file=FIXTURES / "baseline.jpg")
    delay = 0.2
    proxy = StallingProxy(store.s3, delay=delay)
    server = far(store, "s3://heads/set", "--store-dir", "off", proxy=proxy)
    try:
        def heads():
            times = [at for i in range(8) for at, a, _ in ranges_sent(proxy, f"/heads/set/photo-{i}.jpg", 0) if a == 0]
            return times if len(times) >= 8 else None
        times = wait_for(heads, what="the heads of the eight masters read")
        assert max(times) - min(times) < delay, f"the heads were read one after another: {[round(t - min(times), 3) for t in times]}"
    finally:
        server.stop()
        proxy.close()


def test_a_replaced_master_is_never_read_through_its_old_structure(store, pyramids, tmp_path):
    store.make_bucket("swap")
    store.put("swap", "set/photo.tif", file=pyramids / "double.tif")
    proxy = StallingProxy(store.s3, delay=0.02, jitter=0.005)
    local = tmp_path / "local"
    local.mkdir()
    shutil.copy(pyramids / "other.tif", local / "photo.tif")
    reference = Server([str(local), "--access-log", "off", "--store-dir", "off"])
    server = far(store, "s3://swap/set", "--store-dir", "s3://swap/tiles", proxy=proxy)
    try:
        before = server.json("/iiif/3/photo/info.json")
        expected = reference.json("/iiif/3/photo/info.json")
        assert before["width"] > expected["width"]
        wait_for(lambda: store.keys("swap", "tiles/object-structures/"), what="the first structure kept")
        store.put("swap", "set/photo.tif", file=pyramids / "other.tif")
        after = wait_for(lambda: (lambda i: i if i["width"] != before["width"] else None)(server.json("/iiif/3/photo/info.json")),
                         what="the replaced master's new version")
        assert (after["width"], after["height"]) == (expected["width"], expected["height"])
        top = top_level(after)
        for x, y in ((0, 0), (5, 3), (23, 15)):
            path = f"/images/photo_files/{top}/{x}_{y}.jpg"
            assert server.get(path)[1] == reference.get(path)[1], path
        assert len(wait_for(lambda: (lambda k: k if len(k) == 2 else None)(store.keys("swap", "tiles/object-structures/")),
                            what="a second structure, for the new version")) == 2
    finally:
        server.stop()
        reference.stop()
        proxy.close()


def test_reads_ahead_start_with_the_first_zoom_into_a_master_far_away(store, pyramids):
    """How far the store is is known from the first GETs, the shared tile store's listing at start and the masters'
    opens: the first tile read of a zoom already has the next level's blocks fetched ahead. (Decided from the
    eighth read that waited for a GET, the first zoom into each of the first masters waited a round trip a level.)"""
    store.make_bucket("firstzoom")
    store.make_bucket("firstzoom-tiles")
    for name in ("a", "b", "c"):
        store.put("firstzoom", f"set/{name}.tif", file=pyramids / "double.tif")
    proxy = StallingProxy(store.s3, delay=0.02, jitter=0.005)
    server = far(store, "s3://firstzoom/set", "--store-dir", "s3://firstzoom-tiles/t", proxy=proxy)
    try:
        for name in ("a", "b", "c"):
            info = server.json(f"/iiif/3/{name}/info.json")
        m = metrics(server)
        assert m["tileserver_object_get_floor_seconds"] >= 0.015, m["tileserver_object_get_floor_seconds"]
        assert m["tileserver_object_reads_ahead_total"] == 0
        top = top_level(info)
        cols, rows = math.ceil(math.ceil(info["width"] / 2) / 256), math.ceil(math.ceil(info["height"] / 2) / 256)
        assert server.get(f"/images/a_files/{top - 1}/{cols // 2}_{rows // 2}.jpg")[0].status == 200
        wait_for(lambda: metrics(server)["tileserver_object_reads_ahead_total"] > 0, 5)
    finally:
        server.stop()
        proxy.close()


def test_reads_ahead_stay_within_the_object_cache(store, pyramids):
    """A deep zoom into a master far away with a 2 MiB block cache: reads ahead are made (a quarter of the
    cache on their way at most), the cache never holds more than its budget, and every tile is the one local
    disk gives."""
    store.make_bucket("ahead")
    store.put("ahead", "set/double.tif", file=pyramids / "double.tif")
    proxy = StallingProxy(store.s3, delay=0.02, jitter=0.005)
    server = far(store, "s3://ahead/set", "--store-dir", "off", "--object-cache-mb", "2", proxy=proxy)
    reference = Server([str(pyramids), "--access-log", "off", "--store-dir", "off"])
    try:
        info = server.json("/iiif/3/double/info.json")
        top = top_level(info)
        # Full-resolution tiles far apart, a GET each (the open's and these tell the server how far the store is).
        for i in range(10):
            path = f"/images/double_files/{top}/{(i * 7) % 31}_{(i * 5) % 20}.jpg"
            assert server.get(path)[1] == reference.get(path)[1], path
        peak = 0
        for level in range(top - 4, top + 1):
            scale = 2 ** (top - level)
            cols, rows = math.ceil(math.ceil(info["width"] / scale) / 256), math.ceil(math.ceil(info["height"] / scale) / 256)
            for y in range(max(0, rows // 2 - 1), min(rows, rows // 2 + 2)):
                for x in range(max(0, cols // 2 - 2), min(cols, cols // 2 + 3)):
                    path = f"/images/double_files/{level}/{x}_{y}.jpg"
                    response, body = server.get(path)
                    assert response.status == 200 and body == reference.get(path)[1], path
            m = metrics(server)
            peak = max(peak, m["tileserver_object_cache_bytes"])
            assert m["tileserver_object_cache_bytes"] <= m["tileserver_object_cache_budget_bytes"] == 2 << 20
        m = metrics(server)
        # 20 ± 5 ms away, the store is far: even its quickest GETs wait 15 ms.
        assert m["tileserver_object_get_floor_seconds"] >= 0.015
        assert m["tileserver_object_reads_ahead_total"] > 0
        print(f"object cache: peak {peak / 1024:.0f} KiB of 2048 KiB; reads ahead {m['tileserver_object_reads_ahead_total']:.0f}, "
              f"GET floor {m['tileserver_object_get_floor_seconds'] * 1000:.1f} ms")
    finally:
        server.stop()
        reference.stop()
        proxy.close()


def test_a_regions_stored_tiles_are_read_together(store):
    """A restarted replica, its memory empty, answers a region of 16 tiles its first replica stored in a shared
    store 100 ms away: the 16 GETs go out together (8 at once), so the answer takes a few round trips, not 16; and it
    is the first replica's answer from the same tiles, byte for byte."""
    store.make_bucket("near")
    store.put("near", "set/photo.jpg", file=GALLERY / "large.jpg")
    proxy = StallingProxy(store.s3, delay=0.1)
    args = ("--store-dir", "s3://near/tiles", "--object-prefetch", "off")
    region = "/iiif/3/photo/0,0,1024,1024/1000,/0/default.jpg"   # the full-size level's 4 x 4 tiles, resampled
    first = far(store, "s3://near/set", *args, proxy=proxy)
    try:
        top = top_level(first.json("/iiif/3/photo/info.json"))
        assert first.get(region, timeout=120)[0].status == 200
        response, expected = first.get(region)  # from the tiles as stored (the first answer was made from their pixels)
        assert response.status == 200
        wait_for(lambda: len([k for k in store.keys("near", "tiles/") if f"/{top}/" in k]) >= 16,
                 what="the full-size level's tiles stored", timeout=120)
    finally:
        first.stop()
    second = far(store, "s3://near/set", *args, proxy=proxy)
    try:
        assert second.get("/iiif/3/photo/info.json")[0].status == 200    # opened: what follows is the region alone
        mark = gets(proxy)
        started = time.perf_counter()
        response, body = second.get(region, timeout=120)
        seconds = time.perf_counter() - started
        assert response.status == 200 and body == expected
        tiles = [g[0] for g in since(proxy, mark) if re.search(rf"/{top}/[0-3]_[0-3]\.jpg$", g[0])]
        assert len(tiles) == 16, since(proxy, mark)
        # One after another the tiles alone would take 1.6 s.
        assert seconds < 1.0, f"{seconds:.2f} s for a region of 16 stored tiles 100 ms away"
    finally:
        second.stop()
        proxy.close()


def test_a_hung_store_keeps_no_local_tile_waiting(store, tmp_path):
    """One server, local JPEG masters and JPEG masters in a store that then hangs: the uncached tiles of a local
    master (each from a decode pass) take as long while a dozen requests and their passes wait on the hung store as
    with the store up (p99 within twice), and the store's requests end 503 with Retry-After."""
    store.make_bucket("hang")
    local, remote = tmp_path / "local", tmp_path / "remote"
    local.mkdir()
    remote.mkdir()
    for i in range(2):
        subprocess.run(["vips", "resize", str(GALLERY / "large.jpg"), f"{local / f'near-{i}.jpg'}[Q=90]", "1.5"], check=True)
    for i in range(4):
        subprocess.run(["vips", "resize", str(GALLERY / "large.jpg"), f"{remote / f'far-{i}.jpg'}[Q=90]", str(1 + 0.1 * i)], check=True)
        store.put("hang", f"set/far-{i}.jpg", file=remote / f"far-{i}.jpg")
    proxy = StallingProxy(store.s3)
    server = Server([str(local), "s3://hang/set", "--access-log", "off", "--store-dir", "off", "--object-timeout", "4",
                     "--rescan-interval", "0"], env=store.env(f"http://127.0.0.1:{proxy.port}"))
    try:
        ids = {i["id"] for i in server.json("/api/images")["images"]}
        far_ids = sorted(i for i in ids if "far" in i)
        for ident in far_ids:   # opened while the store is up: their versions are known
            assert server.get(f"/iiif/3/{ident}/info.json")[0].status == 200
        near = sorted(i for i in ids if "near" in i)
        info = server.json(f"/iiif/3/{near[0]}/info.json")
        top = top_level(info)

        def local_tiles(ident):
            """Uncached tiles of every level of a local master, each timed."""
            out = []
            for level in range(top - 5, top + 1):
                for x, y in ((0, 0), (1, 1), (2, 0)):
                    started = time.perf_counter()
                    response, _ = server.get(f"/images/{ident}_files/{level}/{x}_{y}.jpg", timeout=60)
                    if response.status == 404:
                        continue
                    assert response.status == 200
                    out.append(time.perf_counter() - started)
            return out

        up = local_tiles(near[0])
        proxy.forwarding.clear()
        outcomes = []

        def far_tile(path):
            response, _ = server.get(path, timeout=120)
            outcomes.append((path, response.status, response.getheader("Retry-After")))

        waiting = [threading.Thread(target=far_tile, args=(f"/images/{ident}_files/{level}/{x}_0.jpg",))
                   for ident in far_ids for level, x in ((11, 0), (11, 1), (10, 0))]
        for t in waiting:
            t.start()
        time.sleep(0.5)
        hung = local_tiles(near[1])
        still = sum(t.is_alive() for t in waiting)
        for t in waiting:
            t.join(120)
        proxy.forwarding.set()
        print(f"local uncached tile p99: store up {percentile(up, 0.99) * 1000:.0f} ms, store hung "
              f"{percentile(hung, 0.99) * 1000:.0f} ms ({len(hung)} tiles, {still} requests waiting on the store meanwhile)")
        assert still >= 6, "the requests to the hung store ended before the measurement"
        assert percentile(hung, 0.99) <= 2 * percentile(up, 0.99), (up, hung)
        assert len(outcomes) == len(waiting)
        for path, status, retry_after in outcomes:
            assert status == 503 and int(retry_after) > 0, (path, status)
    finally:
        server.stop()
        proxy.close()
