#!/usr/bin/env python3
"""Cold page loads of the viewer in headless Chromium: is the picture in the page's first frame?

  .build-venv/bin/python bench/first-frame.py [PHOTO] [LOADS]   (defaults: the test gallery photo, 20 loads an address)

One server (the e2e tests' binary: TILESERVER_BIN or .build/debug) on a folder holding PHOTO as `a-first` beside a
second copy in a sub-folder. Its thumbnails are made first, as for anyone opening a link to a photo shown before.
Then, alternated, each in a new browser context (nothing cached), 1440 x 900:
  `/?image=a-first`  the address the viewer writes: the server writes the thumbnail into the page;
  `/#image=b/b`      an older fragment link, which the server never sees: the page's script asks for the thumbnail.
For each: in how many loads the picture's paint (Element Timing) is the page's first paint, how many screenshots
taken 100 ms after navigation started show it, and the median and worst paint times, in ms after navigation.
"""
import io
import shutil
import statistics
import sys
import tempfile
import urllib.request
from pathlib import Path

import numpy as np
from PIL import Image
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests/e2e"))
from conftest import Server  # noqa: E402

PHOTO = Path(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1] else ROOT / ".build-fixtures/gallery/large.jpg"
LOADS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
ADDRESSES = {"?image= (written in)": ("/?image=a-first", "a-first"), "#image= (fetched)": ("/#image=b%2Fb", "b/b")}
OBSERVE = """new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__painted ??= e.renderTime; })
    .observe({ type: 'element', buffered: true });"""


def main():
    root = Path(tempfile.mkdtemp(prefix="first-frame-"))
    (root / "b").mkdir()
    shutil.copy(PHOTO, root / "a-first.jpg")
    shutil.copy(PHOTO, root / "b" / "b.jpg")
    server = Server([str(root), "--access-log", "off"])
    results = {name: [] for name in ADDRESSES}
    try:
        for _, image in ADDRESSES.values():
            urllib.request.urlopen(f"http://127.0.0.1:{server.port}/images/{image.replace('/', '%2F')}/thumbnail").read()
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            for _ in range(LOADS):
                for name, (path, image) in ADDRESSES.items():
                    context = browser.new_context(viewport={"width": 1440, "height": 900})
                    page = context.new_page()
                    page.add_init_script(OBSERVE)
                    page.goto(f"http://127.0.0.1:{server.port}{path}", wait_until="commit")
                    page.evaluate("new Promise((done) => setTimeout(done, Math.max(0, 100 - performance.now())))")
                    shot = np.asarray(Image.open(io.BytesIO(page.screenshot())).convert("L"), dtype=float)
                    page.wait_for_function("window.__painted !== undefined", timeout=10_000)
                    painted = page.evaluate("window.__painted")
                    first = page.evaluate("performance.getEntriesByType('paint')[0].startTime")
                    results[name].append((abs(painted - first) <= 1, shot[350:550, 520:920].std() > 10, painted))
                    context.close()
            browser.close()
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
    print(f"photo {PHOTO.name}, {LOADS} cold loads an address, alternated")
    for name, runs in results.items():
        paints = [r[2] for r in runs]
        print(f"FIGURE {name}: picture in the first frame {sum(r[0] for r in runs)} of {len(runs)}, "
              f"on screen at 100 ms {sum(r[1] for r in runs)} of {len(runs)}, "
              f"painted median {statistics.median(paints):.0f} ms, worst {max(paints):.0f} ms")


if __name__ == "__main__":
    main()
