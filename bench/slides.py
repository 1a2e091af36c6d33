#!/usr/bin/env python3
"""Whole-slide images against openslide-python's own DeepZoom server (issue 61), on a 40,000 x 30,000 Aperio SVS
made here, replaying a viewer's zoom-in: from the fitted view (1440 x 900) down to full size around a point, each
step's visible DeepZoom tiles asked six at a time, as a browser does.

  bench/slides.sh [ROUNDS]      (default 3; TILESERVER_BIN picks our binary, default .build/release/tileserver)

Prints, as medians of ROUNDS alternated runs:
  cold      our server on a fresh store, against `deepzoom_server.py` (PyPI openslide-python over Debian's
            libopenslide 3.4.1, run as shipped, with 256-pixel tiles, no overlap and quality 85 so the URLs and
            tiles are the same); goal: ours <= 0.3 x its wall time;
  restarted our server restarted on the store the cold run filled, against our own pyramidal TIFF of the same
            pixels (libvips' tiffsave of OpenSlide's level 0), restarted on its filled store alike; goal <= 1.1 x;
  peak RSS  our server's VmHWM in the cold runs, against --render-memory-mb.
Needs tifffile (.build-venv), vips, and a venv with openslide-python and flask (made in the work folder).
"""
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import tifffile

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests/e2e"))
from conftest import Server, free_port  # noqa: E402

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
WIDTH, HEIGHT, TILE = 40_000, 30_000, 256
SCREEN = (1440, 900)
BUDGET_MB = 512
WORK = Path(os.environ.get("SLIDES_WORK", "/var/tmp/tileserver-bench-slides"))


def texture(x0, y0, w, h, step):
    """The slide's pixels over level-0 rectangle (x0, y0) of w x h output pixels, each `step` level-0 pixels."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    x, y = x0 + x * step, y0 + y * step
    r = 200 + 40 * np.sin(x / 97.0) * np.cos(y / 131.0) - 60 * (np.sin(x / 1700.0) * np.sin(y / 1300.0) > 0.6)
    g = 150 + 60 * np.sin((x + y) / 173.0)
    b = 190 + 50 * np.cos(x / 211.0 - y / 157.0)
    return np.clip(np.dstack([r, g, b]), 0, 255).astype(np.uint8)


def make_slide(path):
    """An Aperio SVS: level 0 and levels at downsample 4 and 16, JPEG tiles, a thumbnail (written tile by tile)."""
    head = f"Aperio Image Library v10.0.50\r\n{WIDTH}x{HEIGHT} [0,0 {WIDTH}x{HEIGHT}] (256x256) JPEG/RGB Q=90"

    def tiles(step):
        w, h = (WIDTH + step - 1) // step, (HEIGHT + step - 1) // step
        for ty in range(0, h, TILE):
            for tx in range(0, w, TILE):
                yield texture(tx * step, ty * step, TILE, TILE, step)

    with tifffile.TiffWriter(path, bigtiff=True) as tif:
        def level(step, description):
            w, h = (WIDTH + step - 1) // step, (HEIGHT + step - 1) // step
            tif.write(tiles(step), shape=(h, w, 3), dtype=np.uint8, tile=(TILE, TILE), photometric="rgb",
                      compression="jpeg", compressionargs={"level": 90}, description=description, metadata=None)
        level(1, f"{head}|AppMag = 20|MPP = 0.25")
        thumb = texture(0, 0, WIDTH // 40, HEIGHT // 40, 40)
        tif.write(thumb, photometric="rgb", compression="jpeg", metadata=None,
                  description=f"Aperio Image Library v10.0.50\r\n{WIDTH}x{HEIGHT} -> {thumb.shape[1]}x{thumb.shape[0]}")
        for d in (4, 16):
            level(d, f"{head} -> {WIDTH // d}x{HEIGHT // d} JPEG/RGB Q=90")


def trace():
    """DeepZoom (level, column, row) of each step of a zoom-in from fit to full size around (0.62, 0.41)."""
    top = (max(WIDTH, HEIGHT) - 1).bit_length()
    fit = min(SCREEN[0] / WIDTH, SCREEN[1] / HEIGHT)
    steps, level = [], top - int(np.floor(np.log2(1 / fit)))
    cx, cy = 0.62 * WIDTH, 0.41 * HEIGHT
    while level <= top:
        scale = 2.0 ** (level - top)
        w, h = int(np.ceil(WIDTH * scale)), int(np.ceil(HEIGHT * scale))
        vx, vy = min(max(0, cx * scale - SCREEN[0] / 2), max(0, w - SCREEN[0])), min(max(0, cy * scale - SCREEN[1] / 2), max(0, h - SCREEN[1]))
        cols = range(int(vx // TILE), min((w - 1) // TILE, int((vx + SCREEN[0] - 1) // TILE)) + 1)
        rows = range(int(vy // TILE), min((h - 1) // TILE, int((vy + SCREEN[1] - 1) // TILE)) + 1)
        steps.append([(level, c, r) for r in rows for c in cols])
        level += 1
    return steps


def replay(base, steps, extension):
    """Each step's tiles, six at a time; seconds for all, and any answer that was not a 200 image."""
    started, bad = time.monotonic(), []

    def get(t):
        url = f"{base}_files/{t[0]}/{t[1]}_{t[2]}.{extension}"
        with urllib.request.urlopen(url, timeout=600) as r:
            body = r.read()
            if r.status != 200 or not body.startswith(b"\xff\xd8"):
                bad.append(url)

    with ThreadPoolExecutor(6) as pool:
        for step in steps:
            list(pool.map(get, step))
    return time.monotonic() - started, bad


def peak_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmHWM"))


def ours(folder, store, name, steps):
    server = Server([str(folder), "--store-dir", str(store), "--render-memory-mb", str(BUDGET_MB), "--quality", "85",
                     "--access-log", "off"], executable=os.environ.get("TILESERVER_BIN", str(ROOT / ".build/release/tileserver")))
    try:
        server.wait_for_index()
        seconds, bad = replay(f"http://127.0.0.1:{server.port}/images/{name}", steps, "jpg")
        return seconds, bad, peak_mb(server.process.pid)
    finally:
        server.stop()


def peer(python, script, slide, steps):
    port = free_port()
    process = subprocess.Popen([python, str(script), "-s", str(TILE), "-e", "0", "-Q", "85", "-l", "127.0.0.1", "-p", str(port),
                                str(slide)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/slide.dzi", timeout=2).read()
                break
            except OSError:
                time.sleep(0.1)
        return replay(f"http://127.0.0.1:{port}/slide", steps, "jpeg")[:2]
    finally:
        process.terminate()
        process.wait(10)


def main():
    WORK.mkdir(parents=True, exist_ok=True)
    slides_dir, tiffs = WORK / "slides", WORK / "tiff"
    slide, tiff = slides_dir / "section.svs", tiffs / "section.tif"
    if not slide.exists():
        slides_dir.mkdir(exist_ok=True)
        started = time.monotonic()
        make_slide(slide)
        print(f"made {slide} ({slide.stat().st_size >> 20} MB) in {time.monotonic() - started:.0f} s")
    if not tiff.exists():
        tiffs.mkdir(exist_ok=True)
        flat = WORK / "level0.v"
        subprocess.run(["vips", "extract_band", str(slide), str(flat), "0", "--n", "3"], check=True)
        subprocess.run(["vips", "tiffsave", str(flat), str(tiff), "--tile", "--pyramid", "--compression", "jpeg", "--Q", "90",
                        "--tile-width", "256", "--tile-height", "256", "--bigtiff"], check=True)
        flat.unlink()
    venv = WORK / "openslide-venv"
    if not (venv / "bin/python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin/pip"), "install", "-q", "openslide-python", "flask", "pillow"], check=True)
    script = WORK / "deepzoom/deepzoom_server.py"
    if not script.exists():
        subprocess.run([str(venv / "bin/pip"), "download", "-q", "--no-deps", "--no-binary", ":all:", "-d", str(WORK), "openslide-python"], check=True)
        sdist = next(WORK.glob("openslide_python-*.tar.gz"))
        with tarfile.open(sdist) as archive:
            top = archive.getnames()[0].split("/")[0]
            archive.extractall(WORK / "sdist", filter="data")
        shutil.copytree(WORK / "sdist" / top / "examples/deepzoom", WORK / "deepzoom")
    steps = trace()
    print(f"trace: {len(steps)} steps, {sum(map(len, steps))} tiles (levels {steps[0][0][0]} to {steps[-1][0][0]}), "
          f"{SCREEN[0]} x {SCREEN[1]} view, six at a time")
    cold, theirs, peaks, warm, warm_tiff = [], [], [], [], []
    for round_ in range(ROUNDS):
        store, tiff_store = Path(tempfile.mkdtemp(dir=WORK)), Path(tempfile.mkdtemp(dir=WORK))
        try:
            seconds, bad, peak = ours(slides_dir, store, "section", steps)
            assert not bad, bad[:3]
            cold.append(seconds)
            peaks.append(peak)
            seconds, bad = peer(str(venv / "bin/python"), script, slide, steps)
            assert not bad, bad[:3]
            theirs.append(seconds)
            ours(tiffs, tiff_store, "section", steps)                  # fills the TIFF's store as the slide's was
            warm.append(ours(slides_dir, store, "section", steps)[0])
            warm_tiff.append(ours(tiffs, tiff_store, "section", steps)[0])
        finally:
            shutil.rmtree(store, ignore_errors=True)
            shutil.rmtree(tiff_store, ignore_errors=True)
        print(f"round {round_ + 1}: cold {cold[-1]:.2f} s against deepzoom_server {theirs[-1]:.2f} s; restarted {warm[-1]:.2f} s "
              f"against our TIFF {warm_tiff[-1]:.2f} s; peak RSS {peaks[-1]:.0f} MB")
    c, t, w, wt, p = (statistics.median(v) for v in (cold, theirs, warm, warm_tiff, peaks))
    print(f"FIGURE cold: ours {c:.2f} s, deepzoom_server.py {t:.2f} s: {c / t:.2f} x (goal <= 0.3: {'met' if c <= 0.3 * t else 'NOT met'})")
    print(f"FIGURE restarted on a filled store: slide {w:.2f} s, our pyramidal TIFF {wt:.2f} s: {w / wt:.2f} x "
          f"(goal <= 1.1: {'met' if w <= 1.1 * wt else 'NOT met'})")
    print(f"FIGURE peak RSS: {p:.0f} MB with --render-memory-mb {BUDGET_MB} ({'within' if p <= BUDGET_MB else 'OVER'})")


if __name__ == "__main__":
    main()
