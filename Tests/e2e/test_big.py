"""A 200,000 x 100,000 (20-gigapixel) BigTIFF pyramid: health and the first fitted view within a second of start, deep
tiles within 50 ms, resident memory within the cache plus 100 MB. The file is written here: every tile of every level
points at one of four deflated solid-colour tiles, so 20 gigapixels take 7 MB and no time to make."""
import io
import math
import struct
import time
import zlib

import pytest
from PIL import Image

from conftest import Server

W, H, T = 200_000, 100_000, 256
COLOURS = [(200, 40, 40), (40, 200, 40), (40, 40, 200), (220, 220, 220)]


def colour(level_from_top, x, y):
    """The colour of tile (x, y) of the file's level `level_from_top` (0: full size)."""
    return COLOURS[(x + y + level_from_top) % 4]


def write_bigtiff(path):
    """A tiled, deflated RGB BigTIFF: the full image, then every halving (rounded down) as a reduced page, down to one
    tile; tile data shared between tiles of the same colour."""
    blobs = [zlib.compress(bytes(c) * (T * T)) for c in COLOURS]
    levels = []
    w, h = W, H
    while True:
        levels.append((w, h))
        if w <= T and h <= T:
            break
        w, h = max(1, w // 2), max(1, h // 2)
    out = bytearray(b"II" + struct.pack("<HHHQ", 43, 8, 0, 0))
    blob_at = []
    for blob in blobs:
        blob_at.append(len(out))
        out += blob
    first_ifd_slot = 8
    previous_next_slot = first_ifd_slot
    for k, (w, h) in enumerate(levels):
        cols, rows = math.ceil(w / T), math.ceil(h / T)
        offsets = [blob_at[(x + y + k) % 4] for y in range(rows) for x in range(cols)]
        counts = [len(blobs[(x + y + k) % 4]) for y in range(rows) for x in range(cols)]
        offsets_at = len(out)
        out += struct.pack(f"<{len(offsets)}Q", *offsets)
        counts_at = len(out)
        out += struct.pack(f"<{len(counts)}Q", *counts)
        entries = [(254, 4, 1, 1 if k else 0), (256, 4, 1, w), (257, 4, 1, h), (258, 3, 3, None), (259, 3, 1, 8),
                   (262, 3, 1, 2), (277, 3, 1, 3), (284, 3, 1, 1), (322, 3, 1, T), (323, 3, 1, T),
                   (324, 16, len(offsets), offsets_at), (325, 16, len(counts), counts_at)]
        if len(out) % 2:
            out += b"\0"
        ifd_at = len(out)
        struct.pack_into("<Q", out, previous_next_slot, ifd_at)
        out += struct.pack("<Q", len(entries))
        for tag, kind, count, value in entries:
            if tag == 258:
                out += struct.pack("<HHQHHHH", tag, kind, count, 8, 8, 8, 0)
            elif kind == 3 and count == 1:
                out += struct.pack("<HHQHHI", tag, kind, count, value, 0, 0)
            elif kind == 4 and count == 1:
                out += struct.pack("<HHQII", tag, kind, count, value, 0)
            else:
                out += struct.pack("<HHQQ", tag, kind, count, value if count > 1 else value)
        previous_next_slot = len(out)
        out += struct.pack("<Q", 0)
    path.write_bytes(bytes(out))
    return levels


def resident_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


def test_a_20_gigapixel_bigtiff_opens_at_once(tmp_path):
    levels = write_bigtiff(tmp_path / "huge.tif")
    started = time.monotonic()
    server = Server([str(tmp_path / "huge.tif"), "--cache-mb", "64", "--access-log", "off"])
    try:
        while server.get("/healthz")[0].status != 200:
            time.sleep(0.01)
        healthy = time.monotonic() - started
        response, body = server.get("/api/images/huge/viewport.jpg?width=1280&height=800")
        first_view = time.monotonic() - started
        assert response.status == 200 and Image.open(io.BytesIO(body)).size == (1280, 800)
        assert healthy < 1.0 and first_view < 1.0, (healthy, first_view)
        info = server.json("/api/images/huge")
        assert (info["width"], info["height"]) == (W, H) and info["maxLevel"] == 18
        iiif = server.json("/iiif/3/huge/info.json")
        assert iiif["width"] == W and iiif["maxWidth"] == W and iiif["tiles"][0]["scaleFactors"][-1] == 2 ** 18

        # Deep tiles anywhere: each cold, each the colour of the file's own tile under it.
        times = []
        for i in range(40):
            x, y = (i * 7919) % math.ceil(W / T), (i * 104729) % math.ceil(H / T)
            t0 = time.monotonic()
            response, body = server.get(f"/images/huge/tiles/18/{x}/{y}.jpg")
            times.append(time.monotonic() - t0)
            assert response.status == 200
            pixel = Image.open(io.BytesIO(body)).convert("RGB").getpixel((128, 128))
            assert max(abs(a - b) for a, b in zip(pixel, colour(0, x, y))) <= 3, (x, y, pixel)
        times.sort()
        print(f"healthz {healthy * 1000:.0f} ms, first view {first_view * 1000:.0f} ms, deep tiles median "
              f"{times[len(times) // 2] * 1000:.1f} ms, slowest {times[-1] * 1000:.1f} ms")
        assert times[-1] < 0.05, times[-5:]
        # Level 16 is the file's third page (reduced by 4), read tile for tile.
        response, body = server.get("/images/huge/tiles/16/5/3.png")
        assert response.status == 200 and Image.open(io.BytesIO(body)).convert("RGB").getpixel((10, 10)) == colour(2, 5, 3)
        rss = resident_mb(server.process.pid)
        assert rss < 64 + 100, rss
    finally:
        server.stop()
