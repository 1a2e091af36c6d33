#!/usr/bin/env python3
"""A never-seen photo in the viewer: from navigation to every visible tile at device pixels, against the same tiles
fetched straight from a fresh server (issue 60, item 10: goal ≤ 1.2 × those + 0.5 s; the first picture kept at
0.36-0.42 s).

  .build-venv/bin/python bench/never-seen.py [LOADS]   (default 5 loads a device; TILESERVER_BIN picks the binary)

Each load is a fresh server on a folder of its own holding one 5120 × 2880 JPEG made here (a photo-like gradient
with noise), so nothing is decoded or cached before. Alternated for each device (1440 × 900 desktop; 390 × 844
phone at device-pixel ratio 3):
  viewer  a new browser context opens `/?image=photo`; the time is the last `responseEnd` of the tiles the view
          shows (the page's own resource timings, once nothing is pending), and the thumbnail's paint (Element
          Timing) is the first picture;
  tiles   a fresh server is asked for /viewport, then for the tiles it names, six at a time as a browser does;
          the time is from the first request to the last tile's last byte.
Prints the medians and the goal's figure; asserts nothing about time.
"""
import json
import shutil
import statistics
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests/e2e"))
from conftest import Server  # noqa: E402

LOADS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
DEVICES = {
    "desktop": {"viewport": {"width": 1440, "height": 900}},
    "phone": {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "has_touch": True, "is_mobile": True},
}
BAR = (56, 60)                          # the top bar and the gallery bar the viewer leaves out of the view


def photo(path):
    """A 5120 x 2880 JPEG like a photo's: smooth colour gradients with grain, quality 90."""
    import numpy as np
    from PIL import Image
    y, x = np.mgrid[0:2880, 0:5120].astype(np.float32)
    rng = np.random.default_rng(7)
    bands = [127 + 90 * np.sin(x / (300 + 97 * k) + y / (410 - 60 * k)) + rng.normal(0, 10, x.shape) for k in range(3)]
    Image.fromarray(np.clip(np.dstack(bands), 0, 255).astype(np.uint8)).save(path, quality=90)


def fresh(source):
    root = Path(tempfile.mkdtemp(prefix="never-seen-"))
    shutil.copy(source, root / "photo.jpg")
    return root, Server([str(root), "--access-log", "off"])


def viewer_load(browser, source, device):
    root, server = fresh(source)
    try:
        context = browser.new_context(**device)
        page = context.new_page()
        page.add_init_script("""new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__painted ??= e.renderTime; })
            .observe({ type: 'element', buffered: true });""")
        page.goto(f"http://127.0.0.1:{server.port}/?image=photo", wait_until="commit")
        page.wait_for_function("window.tileViewer?.state.ready && window.tileViewer.state.pending === 0", timeout=60_000)
        page.wait_for_timeout(300)
        page.wait_for_function("window.tileViewer.state.pending === 0", timeout=60_000)
        level = page.evaluate("window.tileViewer.state.level")
        done = page.evaluate(f"""Math.max(...performance.getEntriesByType('resource')
            .filter(e => e.name.includes('/tiles/{level}/') || (e.name.includes('/iiif/3/') && !e.name.includes('/full/')))
            .map(e => e.responseEnd))""")
        painted = page.evaluate("window.__painted ?? NaN")
        context.close()
        return done / 1000, painted / 1000
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


def tiles_load(source, device):
    root, server = fresh(source)
    try:
        w, h = device["viewport"]["width"], device["viewport"]["height"] - sum(BAR)
        ratio = device.get("device_scale_factor", 1)
        base = f"http://127.0.0.1:{server.port}"
        start = time.monotonic()
        v = json.loads(urllib.request.urlopen(f"{base}/api/images/photo/viewport?width={w}&height={h}&dpr={ratio}").read())
        with ThreadPoolExecutor(6) as pool:
            list(pool.map(lambda t: urllib.request.urlopen(base + t["url"]).read(), v["tiles"]))
        return time.monotonic() - start, len(v["tiles"])
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


def main():
    work = Path(tempfile.mkdtemp(prefix="never-seen-photo-"))
    source = work / "photo.jpg"
    photo(source)
    results = {name: {"viewer": [], "painted": [], "tiles": [], "count": 0} for name in DEVICES}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            for _ in range(LOADS):
                for name, device in DEVICES.items():
                    seen, painted = viewer_load(browser, source, device)
                    alone, count = tiles_load(source, device)
                    results[name]["viewer"].append(seen)
                    results[name]["painted"].append(painted)
                    results[name]["tiles"].append(alone)
                    results[name]["count"] = count
            browser.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"a never-seen 5120 x 2880 JPEG, {LOADS} loads a device, alternated, fresh server each time")
    for name, r in results.items():
        viewer, tiles, painted = (statistics.median(r[k]) for k in ("viewer", "painted", "tiles"))
        goal = 1.2 * tiles + 0.5
        print(f"FIGURE {name}: every visible tile {viewer:.2f} s (median of {', '.join(f'{x:.2f}' for x in r['viewer'])}); "
              f"the same {r['count']} tiles from a fresh server {tiles:.2f} s; goal <= 1.2 x + 0.5 = {goal:.2f} s "
              f"({'met' if viewer <= goal else 'NOT met'}); first picture {painted:.2f} s")


if __name__ == "__main__":
    main()
