#!/usr/bin/env python3
"""A cold tile's cost: HTJ2K (tiled and untiled) against classic JPEG 2000 and a pyramidal TIFF of the same photo.
Each round starts a fresh server per file (no store, nothing cached) and asks for the same seeded list of tiles at
the top three levels, each once: every answer is a decode. Files alternated, ROUNDS rounds; prints the median
milliseconds per tile for each, and FIGURE lines. Asserts nothing.

  bench/htj2k.py        (BIN=.build/release/tileserver ROUNDS=3 TILES=60 SCALE=1)

Needs imagecodecs in the Python running it (scripts/test.sh puts it in .build-venv) and opj_compress and vips.
"""
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import imagecodecs
import numpy
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
BIN = os.environ.get("BIN", str(ROOT / ".build/release/tileserver"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
TILES = int(os.environ.get("TILES", "60"))
SCALE = float(os.environ.get("SCALE", "1"))


def serve(path):
    process = subprocess.Popen([BIN, "serve", str(path), "--host", "127.0.0.1", "--port", "0", "--access-log", "off",
                                "--store-dir", "off"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in process.stdout:
        found = re.search(r"on 127\.0\.0\.1:(\d+)", line)
        if found:
            return process, int(found.group(1))
    raise RuntimeError("server did not start")


def main():
    work = Path(tempfile.mkdtemp(prefix="tileserver-htj2k-bench-", dir="/var/tmp"))
    try:
        real = Path("/var/tmp/tileserver-images/real-elephants-5640x3172.jpg")
        source = real if real.exists() else ROOT / ".build-fixtures/gallery/large.jpg"
        png = work / "photo.png"
        subprocess.run(["vips", "resize", str(source), str(png), str(SCALE)], check=True)
        pixels = numpy.asarray(Image.open(png).convert("RGB"))
        height, width = pixels.shape[:2]
        files = {
            "htj2k 1024 px tiles": ("ht-tiled.j2c", lambda out: out.write_bytes(imagecodecs.htj2k_encode(pixels, level=0.005, tile=(1024, 1024)))),
            "htj2k untiled": ("ht-single.j2c", lambda out: out.write_bytes(imagecodecs.htj2k_encode(pixels, level=0.005))),
            "classic j2k 1024 px tiles": ("classic.jp2", lambda out: subprocess.run(
                ["opj_compress", "-i", str(png), "-o", str(out), "-n", "6", "-t", "1024,1024", "-q", "48", "-I"],
                check=True, capture_output=True)),
            "pyramidal tiff": ("pyramid.tif", lambda out: subprocess.run(
                ["vips", "tiffsave", str(png), str(out), "--tile", "--pyramid", "--compression", "jpeg", "--Q", "90",
                 "--tile-width", "256", "--tile-height", "256"], check=True)),
        }
        for label, (name, make) in files.items():
            folder = work / label.replace(" ", "-")
            folder.mkdir()
            make(folder / name)
        top = math.ceil(math.log2(max(width, height)))
        urls = []
        for level in (top, top - 1, top - 2):
            scale = 2 ** (top - level)
            cols, rows = math.ceil(math.ceil(width / scale) / 256), math.ceil(math.ceil(height / scale) / 256)
            urls += [(level, x, y) for x in range(cols) for y in range(rows)]
        random.Random(7).shuffle(urls)
        urls = urls[:TILES]
        times = {label: [] for label in files}
        for _ in range(ROUNDS):
            for label, (name, _) in files.items():
                folder = work / label.replace(" ", "-")
                subprocess.run(["cat", str(folder / name)], stdout=subprocess.DEVNULL)   # in the page cache, as for each
                process, port = serve(folder)
                image = Path(name).stem
                try:
                    for level, x, y in urls:
                        start = time.perf_counter()
                        body = urllib.request.urlopen(f"http://127.0.0.1:{port}/images/{image}/tiles/{level}/{x}/{y}.jpg").read()
                        times[label].append((time.perf_counter() - start) * 1000)
                        assert body[:2] == b"\xff\xd8"
                finally:
                    process.terminate()
                    process.wait(30)
        print(f"{width} x {height}, {len(urls)} tiles of the top three levels, {ROUNDS} rounds")
        for label, values in times.items():
            print(f"FIGURE\tcold tile, {label}\tmedian {statistics.median(values):.1f} ms\t"
                  f"p90 {statistics.quantiles(values, n=10)[-1]:.1f} ms\tsum per round {sum(values) / ROUNDS:.0f} ms")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
