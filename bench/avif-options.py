#!/usr/bin/env python3
"""Where libaom's limit lies for AVIF tiles against JPEG at equal luma SSIM: encoder speeds and options.

  .build-venv/bin/python bench/avif-options.py [PHOTO]     (SPEEDS="6 4 2" OPTIONS="base qm deltaq chroma-deltaq 10bit")

16 tiles of 256 x 256 at seeded places, 8 of PHOTO (default: the real photo of ../shared/tools/make-images.sh,
else the test gallery photo) and 8 of it halved; their JPEG at quality 85 (Pillow's libjpeg, 4:2:0) gives the
target: the tiles' mean SSIM (bench/webp.py's luma SSIM). For each speed and option set, libaom's quantizer
(cq-level, 0..63, end-usage q, tune ssim, 4:2:0) is bisected to the two neighbouring levels whose mean SSIM brackets
the target, and the bytes at equal SSIM are interpolated between them: the encoder's curve, not its nearest step
(the server's quality table takes the step at or above). Encoded with Debian's avifenc (libavif over the libaom 3.6
libheif links), decoded with heif-convert. Also the time of one encode a tile at each speed. Asserts nothing.
"""
import io
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import imagecodecs
import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))
import webp  # noqa: E402  (its SSIM)

ROOT = Path(__file__).resolve().parents[1]
REAL = Path("/var/tmp/tileserver-images/real-elephants-5640x3172.jpg")
PHOTO = Path(sys.argv[1]) if len(sys.argv) > 1 else REAL if REAL.exists() else ROOT / ".build-fixtures/gallery/large.jpg"
SPEEDS = os.environ.get("SPEEDS", "6 4 2").split()
OPTIONS = {"base": [], "qm": ["-a", "enable-qm=1"], "deltaq": ["-a", "deltaq-mode=3"],
           "chroma-deltaq": ["-a", "enable-chroma-deltaq=1"], "10bit": ["-d", "10"]}
CHOSEN = os.environ.get("OPTIONS", "base qm deltaq chroma-deltaq 10bit").split()
WORK = Path(tempfile.mkdtemp(prefix="avif-options-"))


def tiles():
    photo = Image.open(PHOTO).convert("RGB")
    half = photo.resize((photo.width // 2, photo.height // 2), Image.BOX)
    places = random.Random(5)
    out = []
    for image in (photo, half):
        for _ in range(8):
            x, y = places.randrange(0, image.width - 256), places.randrange(0, image.height - 256)
            out.append(image.crop((x, y, x + 256, y + 256)))
    return out


def jpeg(tile):
    buffer = io.BytesIO()
    tile.save(buffer, "JPEG", quality=85, subsampling=2)
    data = buffer.getvalue()
    return len(data), Image.open(io.BytesIO(data)).convert("RGB")


def avif(tile, cq, speed, extra):
    tile.save(WORK / "in.png")
    subprocess.run(["avifenc", "-c", "aom", "-s", speed, "-y", "420", "-d", "8", "--min", "0", "--max", "63",
                    "-a", "end-usage=q", "-a", f"cq-level={cq}", "-a", "tune=ssim", *extra, str(WORK / "in.png"),
                    str(WORK / "out.avif")], check=True, capture_output=True)
    size = (WORK / "out.avif").stat().st_size
    subprocess.run(["heif-convert", str(WORK / "out.avif"), str(WORK / "back.png")], check=True, capture_output=True)
    back = imagecodecs.png_decode((WORK / "back.png").read_bytes())
    if back.dtype == np.uint16:
        back = ((back.astype(np.uint32) + 128) // 257).astype(np.uint8)
    return size, Image.fromarray(back[..., :3])


def point(encode, picked):
    sizes, scores = 0, []
    for tile in picked:
        size, back = encode(tile)
        sizes += size
        scores.append(webp.ssim(tile, back))
    return sizes, float(np.mean(scores))


def main():
    picked = tiles()
    jpeg_bytes, target = point(jpeg, picked)
    print(f"{PHOTO.name}: 16 tiles, JPEG q85 {jpeg_bytes} bytes, mean SSIM {target:.4f}", flush=True)
    for speed in SPEEDS:
        started = time.perf_counter()
        avif(picked[0], 25, speed, [])
        print(f"speed {speed}: one tile encoded in {(time.perf_counter() - started) * 1000:.0f} ms (avifenc, start included)")
        for name in CHOSEN:
            extra = OPTIONS[name]
            seen = {}
            low, high = 10, 50    # SSIM falls as cq rises: low reaches the target, high does not
            while high - low > 1:
                middle = (low + high) // 2
                seen[middle] = point(lambda t: avif(t, middle, speed, extra), picked)
                if seen[middle][1] >= target:
                    low = middle
                else:
                    high = middle
            for cq in (low, high):
                if cq not in seen:
                    seen[cq] = point(lambda t: avif(t, cq, speed, extra), picked)
            (above, above_ssim), (below, below_ssim) = seen[low], seen[high]
            share = (target - below_ssim) / (above_ssim - below_ssim) if above_ssim != below_ssim else 0
            equal = below + share * (above - below)
            print(f"  {name:14} cq {low}: {above / jpeg_bytes:.3f} (SSIM {above_ssim:.4f})  cq {high}: "
                  f"{below / jpeg_bytes:.3f} (SSIM {below_ssim:.4f})  at equal SSIM: {equal / jpeg_bytes:.3f}", flush=True)


if __name__ == "__main__":
    main()
