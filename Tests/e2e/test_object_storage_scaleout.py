"""Two replicas behind deploy/nginx/tileserver.conf, masters and the tile store both in SeaweedFS: the held-out
style trace (a folder's thumbnails, then deep zooms, as Mirador asks) decodes each master once across both replicas
(per kind of pass: its 1/8 pass for thumbnails, its full-resolution pass for deep zoom); a replica killed mid-trace
leaves its images to the other, which answers them from the shared store without decoding them again; no client
sees an error."""
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, Server, free_port
from seaweed import SeaweedFS
from test_object_storage import metrics, settle

sys.path.insert(0, str(ROOT / "bench"))
import traces  # noqa: E402

GALLERY = FIXTURES.parent / "gallery"


def start_nginx(work: Path, port: int, replicas):
    """deploy/nginx/tileserver.conf as it is, but for the replicas, the listen port and the two paths."""
    subprocess.run([sys.executable, str(ROOT / "scripts/nginx-front.py"), str(work), str(port), *map(str, replicas)], check=True)
    subprocess.run(["nginx", "-c", str(work / "nginx.conf"), "-p", str(work)], check=True)


def replay(port, paths):
    """The paths over one keep-alive connection; every answer must be a 200 image (or info.json)."""
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    errors = []
    for path in paths:
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        if response.status != 200 or not (body[:2] == b"\xff\xd8" or path.endswith("info.json")):
            errors.append((path, response.status, body[:200]))
    conn.close()
    return errors


def passes(server):
    m = metrics(server)
    return {kind: m.get(f'tileserver_passes_started_total{{pass="{kind}"}}', 0) for kind in ("1/8", "full", "region")}


@pytest.mark.skipif(shutil.which("nginx") is None, reason="needs nginx (scripts/install-deps.sh test)")
def test_two_replicas_share_one_store_so_each_master_is_decoded_once_and_a_killed_replica_costs_no_decode(tmp_path):
    masters = tmp_path / "masters"
    masters.mkdir()
    for q in (70, 75, 80, 85, 90, 95):
        subprocess.run(["vips", "copy", str(GALLERY / "large.jpg"), f"{masters}/photo-{q}.jpg[Q={q}]"], check=True)
    subprocess.run(["vips", "tiffsave", str(GALLERY / "large.jpg"), str(masters / "archive.tif"), "--tile", "--pyramid",
                    "--compression", "jpeg", "--Q", "85", "--tile-width", "256", "--tile-height", "256"], check=True)
    store = SeaweedFS(tmp_path / "seaweed").start()
    # nginx's workers (another user) write its cache and temporary files here: a folder they can enter.
    work = Path(tempfile.mkdtemp(prefix="tileserver-scaleout-", dir="/var/tmp"))
    work.chmod(0o755)
    replicas = []
    try:
        store.make_bucket("collection")
        store.make_bucket("tiles")
        store.upload_folder("collection", "masters", masters)
        replicas = [Server(["s3://collection/masters", "--store-dir", "s3://tiles/shared", "--access-log", "off"], env=store.env())
                    for _ in range(2)]
        proxy = free_port()
        start_nginx(work, proxy, [r.port for r in replicas])
        images = replicas[0].json("/api/images")["images"]
        jpegs = [i for i in images if i["id"].startswith("photo-")]
        assert len(jpegs) == 6 and len(images) == 7

        def deep(image, centre):
            return ["/iiif/3/" + p for p in traces.deep_zoom((image["id"], image["width"], image["height"]), 256, centre=centre)]

        # The folder's thumbnails, then deep zooms into half the images.
        trace = [f"/iiif/3/{i['id']}/info.json" for i in images] + [f"/iiif/3/{i['id']}/full/,120/0/default.jpg" for i in images]
        first, second = images[::2], images[1::2]
        for image in first:
            trace += deep(image, (0.5, 0.5))
        assert replay(proxy, trace) == []
        for r in replicas:
            settle(r)
        before = [passes(r) for r in replicas]
        # Kill the replica that decoded more; the survivor takes its images.
        victim = max(range(2), key=lambda i: before[i]["1/8"] + before[i]["full"])
        survivor = replicas[1 - victim]
        assert before[victim]["full"] >= 1
        replicas[victim].process.send_signal(signal.SIGKILL)
        replicas[victim].process.wait(10)
        # Zooms elsewhere into the images already zoomed (tiles nginx has not cached, cut by the victim's passes),
        # then into the others.
        survivor_before = passes(survivor)
        trace = []
        for image in first:
            trace += deep(image, (0.3, 0.7))
        assert replay(proxy, trace) == []
        settle(survivor)
        after_first = passes(survivor)
        assert after_first == survivor_before, f"the survivor decoded images the victim had decoded: {survivor_before} -> {after_first}"
        trace = []
        for image in second:
            trace += deep(image, (0.5, 0.5))
        assert replay(proxy, trace) == []
        settle(survivor)
        total = {kind: before[victim][kind] + passes(survivor)[kind] for kind in ("1/8", "full", "region")}
        touched = len(jpegs)
        print(f"passes across both replicas: {total}; JPEG masters touched: {touched}; victim had {before[victim]}")
        # Each JPEG master: one 1/8 pass (its thumbnail) and one full pass (its deep zoom), on one replica or the other.
        assert total["1/8"] == touched and total["full"] == touched, total
        # The shared store holds what the survivor read: store hits from the victim's tiles.
        assert metrics(survivor)["tileserver_store_hits_total"] > 0
        log = (work / "access.log").read_text()
        assert not re.search(r'" (5\d\d|4\d\d) ', log), [line for line in log.splitlines() if re.search(r'" [45]\d\d ', line)][:5]
    finally:
        if (work / "nginx.pid").exists():
            subprocess.run(["kill", "-QUIT", (work / "nginx.pid").read_text().strip()])
        for r in replicas:
            r.stop()
        store.stop()
        shutil.rmtree(work, ignore_errors=True)
