#!/usr/bin/env python3
"""Where Debian 12's AV1 encoders' limit lies for AVIF tiles against JPEG at equal luma SSIM.

  .build-venv/bin/python bench/avif-options.py [PHOTO] [BIN]      (CONFIGS="libheif-6 aom-intra-6 ..." to choose;
                                                                   needs aomenc and aomdec: Debian's aom-tools)

The tiles are bench/avif.py's: the server (BIN, default .build/release/tileserver) on PHOTO (default the real photo
of ../shared/tools/make-images.sh, else the test gallery photo), 48 tiles of its two deepest levels as PNG, those
under 64 x 64 skipped. Their JPEG at quality 85 (Pillow's libjpeg, 4:2:0, as our tiles) gives the target: the
tiles' mean SSIM (bench/webp.py's luma SSIM). For each encoder configuration its quantizer is bisected to the two
neighbouring steps whose mean SSIM brackets the target, and the bytes at equal SSIM are interpolated between them:
the encoder's curve, not its nearest step. Also the mean time of one tile's encode: the encoder's process,
its start included, over six tiles (not the decode back).

Configurations:
  libheif-6            the server's encoder: libheif 1.15's libaom plugin (heif-enc -A), speed 6, 4:2:0
  aom-good-S[-10bit]   libaom 3.6 itself (aomenc), good-quality mode, speed S, tune ssim, perceptual delta-q
  aom-intra-S[-10bit]  the same in libaom's all-intra mode; aom-intra-S-dq0 without delta-q
  svt-S, rav1e-S       SVT-AV1 1.4.1 and rav1e 0.5.1 through libavif's avifenc (the other encoders Debian builds
                       libavif with), speed S
aomenc writes bare AV1; 270 bytes are added to each tile for the AVIF container (libheif's ftyp, meta and mdat
header for a 256 px tile). Decoding: aomdec for aomenc's streams, Pillow (libavif) for the AVIF files. Asserts
nothing.
"""
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
REAL = Path("/var/tmp/tileserver-images/real-elephants-5640x3172.jpg")
PHOTO = Path(sys.argv[1]) if len(sys.argv) > 1 else REAL if REAL.exists() else ROOT / ".build-fixtures/gallery/large.jpg"
BIN = sys.argv[2] if len(sys.argv) > 2 else str(ROOT / ".build/release/tileserver")
CONFIGS = os.environ.get("CONFIGS", "libheif-6 aom-good-6 aom-intra-6 aom-intra-6-dq0 aom-intra-4 aom-intra-2 "
                                    "aom-good-6-10bit aom-intra-4-10bit svt-4 rav1e-4").split()
CONTAINER = 270
WORK = Path(tempfile.mkdtemp(prefix="avif-options-"))
ENCODING = [0.0]   # seconds spent in encoder processes (decodes not counted)


def run_encoder(command):
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    ENCODING[0] += time.perf_counter() - started

sys.path.insert(0, str(Path(__file__).resolve().parent))
import webp  # noqa: E402  (the server, the tiles and the SSIM)
webp.PHOTO, webp.BIN = PHOTO, BIN


def server_tiles():
    server = webp.Server("--quality", "85")
    try:
        image, picks = webp.tiles_of(server)
        out = []
        for level, x, y in picks:
            png = Image.open(io.BytesIO(server.get(f"/images/{image}/tiles/{level}/{x}/{y}.png"))).convert("RGB")
            if png.size[0] >= 64 and png.size[1] >= 64:
                out.append(png)
        return out
    finally:
        server.stop()


def jpeg(tile):
    buffer = io.BytesIO()
    tile.save(buffer, "JPEG", quality=85, subsampling=2)
    data = buffer.getvalue()
    return len(data), Image.open(io.BytesIO(data)).convert("RGB")


def y4m(tile, path):
    """BT.601 full-range 4:2:0 (Pillow's YCbCr, chroma the mean of each 2 x 2 block), as the encoders are given it."""
    w, h = tile.size
    ycc = np.asarray(tile.convert("YCbCr")).astype(np.float64)
    pad = np.pad(ycc, ((0, h % 2), (0, w % 2), (0, 0)), mode="edge")
    sub = pad.reshape(pad.shape[0] // 2, 2, pad.shape[1] // 2, 2, 3).mean(axis=(1, 3))
    planes = [ycc[..., 0], sub[..., 1], sub[..., 2]]
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F1:1 Ip A1:1 C420jpeg XCOLORRANGE=FULL\nFRAME\n".encode())
        for p in planes:
            f.write(np.clip(np.round(p), 0, 255).astype(np.uint8).tobytes())


def from_yuv(path, w, h, ten_bit):
    raw = open(path, "rb").read()
    d = ((np.frombuffer(raw, "<u2").astype(np.int32) + 2) >> 2).clip(0, 255).astype(np.uint8) if ten_bit \
        else np.frombuffer(raw, np.uint8)
    cw, ch = (w + 1) // 2, (h + 1) // 2
    y = d[:w * h].reshape(h, w)
    cb = d[w * h:w * h + cw * ch].reshape(ch, cw).repeat(2, 0).repeat(2, 1)[:h, :w]
    cr = d[w * h + cw * ch:w * h + 2 * cw * ch].reshape(ch, cw).repeat(2, 0).repeat(2, 1)[:h, :w]
    return Image.fromarray(np.stack([y, cb, cr], -1), "YCbCr").convert("RGB")


def encoder(name):
    """(encode(index, tile, step) -> (bytes, decoded), steps low..high, True when a higher step is better)."""
    parts = name.split("-")
    if parts[0] == "libheif":
        def encode(i, tile, q):
            tile.save(WORK / "in.png")
            run_encoder(["heif-enc", "-A", "-q", str(q), "-p", f"speed={parts[1]}", "-p", "chroma=420",
                         str(WORK / "in.png"), "-o", str(WORK / "out.avif")])
            data = (WORK / "out.avif").read_bytes()
            return len(data), Image.open(io.BytesIO(data)).convert("RGB")
        return encode, (0, 100), True
    if parts[0] in ("svt", "rav1e"):
        def encode(i, tile, q):
            tile.save(WORK / "in.png")
            run_encoder(["avifenc", "-c", parts[0], "-s", parts[1], "-y", "420", "-d", "8", "--min", str(q), "--max", str(q),
                         str(WORK / "in.png"), str(WORK / "out.avif")])
            data = (WORK / "out.avif").read_bytes()
            return len(data), Image.open(io.BytesIO(data)).convert("RGB")
        return encode, (0, 63), False
    mode, speed, extra = parts[1], parts[2], parts[3:]
    ten_bit = "10bit" in extra
    flags = ["--allintra" if mode == "intra" else "--good", f"--cpu-used={speed}", "--end-usage=q", "--min-q=0", "--max-q=63",
             "--threads=1", "--limit=1", "--tune=ssim", f"--deltaq-mode={0 if 'dq0' in extra else 3}"]
    if ten_bit:
        flags += ["--bit-depth=10"]

    def encode(i, tile, cq):
        source = WORK / f"tile{i}.y4m"
        if not source.exists():
            y4m(tile, source)
        run_encoder(["aomenc", *flags, f"--cq-level={cq}", "--obu", "-o", str(WORK / "out.obu"), str(source)])
        size = (WORK / "out.obu").stat().st_size - 2 + CONTAINER     # less the temporal delimiter
        subprocess.run(["aomdec", "--rawvideo", f"--output-bit-depth={10 if ten_bit else 8}", "-o", str(WORK / "out.yuv"),
                        str(WORK / "out.obu")], check=True, capture_output=True)
        return size, from_yuv(WORK / "out.yuv", *tile.size, ten_bit)
    return encode, (0, 63), False


def point(encode, tiles, step):
    size, scores = 0, []
    for i, tile in enumerate(tiles):
        b, back = encode(i, tile, step)
        size += b
        scores.append(webp.ssim(tile, back))
    return size, float(np.mean(scores))


def main():
    for tool in ("aomenc", "aomdec", "heif-enc", "avifenc"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is missing: apt-get install aom-tools libheif-examples libavif-bin")
    tiles = server_tiles()
    jpeg_bytes, target = point(lambda i, t, s: jpeg(t), tiles, 0)
    print(f"{PHOTO.name}: {len(tiles)} tiles, JPEG q85 {jpeg_bytes} bytes, mean SSIM {target:.4f}", flush=True)
    for name in CONFIGS:
        encode, (low, high), higher_is_better = encoder(name)
        ENCODING[0] = 0.0
        for i, tile in enumerate(tiles[:6]):
            encode(i, tile, (low + high) // 2)
        per_tile = ENCODING[0] / 6 * 1000
        seen = {}

        def at(step):
            if step not in seen:
                seen[step] = point(encode, tiles, step)
            return seen[step]

        def good(step):
            return at(step)[1] >= target

        # The reaching step nearest the target: bisect, then the next step the other way that gives other bytes.
        a, b = low, high
        while b - a > 1:
            mid = (a + b) // 2
            if good(mid) == higher_is_better:
                b = mid
            else:
                a = mid
        reach = b if higher_is_better else a
        miss = reach - 1 if higher_is_better else reach + 1
        while low <= miss <= high and at(miss) == at(reach):
            miss += -1 if higher_is_better else 1
        (above, above_ssim), (below, below_ssim) = at(reach), at(miss)
        share = (target - below_ssim) / (above_ssim - below_ssim) if above_ssim != below_ssim else 1
        equal = below + share * (above - below)
        print(f"{name:18} {per_tile:5.0f} ms/tile  step {reach}: {above / jpeg_bytes:.3f} (SSIM {above_ssim:.4f})  "
              f"step {miss}: {below / jpeg_bytes:.3f} (SSIM {below_ssim:.4f})  at equal SSIM: {equal / jpeg_bytes:.3f}",
              flush=True)
    shutil.rmtree(WORK)


if __name__ == "__main__":
    main()
