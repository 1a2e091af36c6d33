#!/usr/bin/env python3
"""WebP tiles against JPEG tiles at equal SSIM, on a real photo.

  .build-venv/bin/python bench/webp.py [PHOTO] [BIN]      (defaults: the test gallery photo, .build/release/tileserver)

1. Starts the server on PHOTO and takes 48 tiles of its two deepest levels as PNG (the source pixels), JPEG and WebP.
2. Sweep (Pillow's libwebp, method 4 as ours): for JPEG quality 75, 85 and 92, the lowest WebP quality whose tiles
   reach the JPEG tiles' mean SSIM, and the bytes at that point: the table `WebPQuality` is made from.
3. Our server's own tiles at --quality 85: mean SSIM of each format against the PNG, and WebP bytes over JPEG bytes.
SSIM is on luma (BT.601), 8 x 8 windows with stride 4, the usual constants; tiles smaller than 64 x 64 are skipped.
"""
import io
import math
import re
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
PHOTO = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".build-fixtures/gallery/large.jpg"
BIN = sys.argv[2] if len(sys.argv) > 2 else str(ROOT / ".build/release/tileserver")
METHOD = int(__import__("os").environ.get("METHOD", "4"))   # libwebp effort for the sweep (ours: WebPQuality.method)


def luma(img):
    a = np.asarray(img.convert("RGB"), dtype=np.float64)
    return 0.299 * a[..., 0] + 0.587 * a[..., 1] + 0.114 * a[..., 2]


def ssim(a, b, win=8, step=4):
    x, y = luma(a), luma(b)
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    scores = []
    for j in range(0, x.shape[0] - win + 1, step):
        for i in range(0, x.shape[1] - win + 1, step):
            p, q = x[j:j + win, i:i + win], y[j:j + win, i:i + win]
            mp, mq = p.mean(), q.mean()
            vp, vq, cov = p.var(), q.var(), ((p - mp) * (q - mq)).mean()
            scores.append(((2 * mp * mq + c1) * (2 * cov + c2)) / ((mp * mp + mq * mq + c1) * (vp + vq + c2)))
    return float(np.mean(scores))


class Server:
    def __init__(self, *flags):
        self.store = tempfile.mkdtemp(prefix="webp-bench-")
        self.process = subprocess.Popen([BIN, "serve", str(PHOTO), "--host", "127.0.0.1", "--port", "0", "--store-dir",
                                         self.store, "--access-log", "off", *flags], stdout=subprocess.PIPE, text=True)
        for line in self.process.stdout:
            if m := re.search(r"on 127\.0\.0\.1:(\d+)", line):
                self.port = int(m.group(1))
                break

    def get(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=120) as r:
            return r.read()

    def stop(self):
        self.process.terminate()
        self.process.wait()
        subprocess.run(["rm", "-rf", self.store])


def tiles_of(server):
    info = __import__("json").loads(server.get("/api/images"))["images"][0]
    image, top = info["id"], info["maxLevel"]
    picks = []
    for level in (top, top - 1):
        shrink = 2 ** (top - level)
        cols, rows = math.ceil(info["width"] / shrink / 256), math.ceil(info["height"] / shrink / 256)
        for k in range(24):
            picks.append((level, (k * 7) % cols, (k * 5) % rows))
    return image, picks


def main():
    server = Server("--quality", "85")
    try:
        image, picks = tiles_of(server)
        ref, ours_jpg, ours_webp = [], [], []
        for level, x, y in picks:
            png = Image.open(io.BytesIO(server.get(f"/images/{image}/tiles/{level}/{x}/{y}.png"))).convert("RGB")
            if png.size[0] < 64 or png.size[1] < 64:
                continue
            ref.append(png)
            ours_jpg.append(server.get(f"/images/{image}/tiles/{level}/{x}/{y}.jpg"))
            ours_webp.append(server.get(f"/images/{image}/tiles/{level}/{x}/{y}.webp"))
    finally:
        server.stop()
    print(f"photo {PHOTO.name}: {len(ref)} tiles of its two deepest levels")

    def measure(encode):
        size, score = 0, 0.0
        for png in ref:
            data = encode(png)
            size += len(data)
            score += ssim(png, Image.open(io.BytesIO(data)))
        return size, score / len(ref)

    def jpeg(q):
        return lambda img: (lambda b: (img.save(b, "JPEG", quality=q, subsampling=2), b.getvalue())[1])(io.BytesIO())

    def webp(q):
        return lambda img: (lambda b: (img.save(b, "WEBP", quality=q, method=METHOD), b.getvalue())[1])(io.BytesIO())

    for jq in (75, 85, 92):
        jbytes, jssim = measure(jpeg(jq))
        low, high = 0, 100
        while low < high:                      # the lowest WebP quality reaching the JPEG's SSIM
            mid = (low + high) // 2
            if measure(webp(mid))[1] >= jssim:
                high = mid
            else:
                low = mid + 1
        wbytes, wssim = measure(webp(low))
        print(f"FIGURE sweep jpeg_q {jq} ssim {jssim:.4f} bytes {jbytes} -> webp_q {low} ssim {wssim:.4f} bytes {wbytes} "
              f"ratio {wbytes / jbytes:.3f}")

    js = sum(ssim(p, Image.open(io.BytesIO(b))) for p, b in zip(ref, ours_jpg)) / len(ref)
    ws = sum(ssim(p, Image.open(io.BytesIO(b))) for p, b in zip(ref, ours_webp)) / len(ref)
    jb, wb = sum(map(len, ours_jpg)), sum(map(len, ours_webp))
    print(f"FIGURE ours quality 85: jpeg ssim {js:.4f} bytes {jb}; webp ssim {ws:.4f} bytes {wb}; webp/jpeg bytes {wb / jb:.3f}")


if __name__ == "__main__":
    main()
