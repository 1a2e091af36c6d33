#!/usr/bin/env python3
"""AVIF tiles against JPEG tiles at equal SSIM, on a real photo.

  .build-venv/bin/python bench/avif.py [PHOTO] [BIN]      (defaults: the real photo of ../shared/tools/make-images.sh
                                                            when it is there, else the test gallery photo;
                                                            .build/release/tileserver)

1. Starts the server on PHOTO and takes 48 tiles of its two deepest levels as PNG (the source pixels) and JPEG.
2. Sweep: for JPEG quality 75, 85 and 92 (Pillow's libjpeg, 4:2:0), the lowest AVIF quality whose tiles reach the JPEG
   tiles' mean SSIM, bisected over 0..100 (seven steps), and the bytes at that point: the table `AVIFQuality` is made
   from. The AVIF encoder is the one the server uses, libheif's libaom plugin, through Debian's `heif-enc -A` with
   the server's parameters (speed SPEED, chroma 4:2:0); decoded back with `heif-convert`.
3. Our server's own tiles at --quality 85 with --tile-format avif: mean SSIM of AVIF and JPEG against the PNG, AVIF
   bytes over JPEG bytes, and the time to encode a tile (the server's render histogram over the tiles asked).
SSIM is on luma (BT.601), 8 x 8 windows with stride 4, the usual constants; tiles smaller than 64 x 64 are skipped.
"""
import io
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
REAL = Path("/var/tmp/tileserver-images/real-elephants-5640x3172.jpg")
PHOTO = Path(sys.argv[1]) if len(sys.argv) > 1 else REAL if REAL.exists() else ROOT / ".build-fixtures/gallery/large.jpg"
BIN = sys.argv[2] if len(sys.argv) > 2 else str(ROOT / ".build/release/tileserver")
SPEED = int(__import__("os").environ.get("SPEED", "6"))   # libaom speed for the sweep (ours: AVIFQuality.speed)


# The tiles, the SSIM and the server are bench/webp.py's, pointed at this script's photo and binary.
sys.path.insert(0, str(Path(__file__).resolve().parent))
import webp  # noqa: E402
webp.PHOTO, webp.BIN = PHOTO, BIN
Server, ssim, tiles_of = webp.Server, webp.ssim, webp.tiles_of


def avif_encode(q, work):
    def encode(img):
        png, out = work / "in.png", work / "out.avif"
        img.save(png)
        subprocess.run(["heif-enc", "-A", "-q", str(q), "-p", f"speed={SPEED}", "-p", "chroma=420", str(png), "-o", str(out)],
                       check=True, capture_output=True)
        return out.read_bytes()
    return encode


def avif_decode(data, work):
    (work / "back.avif").write_bytes(data)
    subprocess.run(["heif-convert", str(work / "back.avif"), str(work / "back.png")], check=True, capture_output=True)
    return Image.open(work / "back.png").convert("RGB")


def main():
    work = Path(tempfile.mkdtemp(prefix="avif-bench-"))
    server = Server("--quality", "85", "--tile-format", "avif")
    try:
        image, picks = tiles_of(server)
        ref, ours_jpg, ours_avif = [], [], []
        for level, x, y in picks:
            png = Image.open(io.BytesIO(server.get(f"/images/{image}/tiles/{level}/{x}/{y}.png"))).convert("RGB")
            if png.size[0] < 64 or png.size[1] < 64:
                continue
            ref.append(png)
            ours_jpg.append(server.get(f"/images/{image}/tiles/{level}/{x}/{y}.jpg"))
            ours_avif.append(server.get(f"/images/{image}/tiles/{level}/{x}/{y}.avif"))
        metrics = server.get("/metrics").decode()
    finally:
        server.stop()
    print(f"photo {PHOTO.name}: {len(ref)} tiles of its two deepest levels")

    def measure(encode, decode=lambda data: Image.open(io.BytesIO(data))):
        size, score = 0, 0.0
        for png in ref:
            data = encode(png)
            size += len(data)
            score += ssim(png, decode(data))
        return size, score / len(ref)

    def jpeg(q):
        return lambda img: (lambda b: (img.save(b, "JPEG", quality=q, subsampling=2), b.getvalue())[1])(io.BytesIO())

    for jq in (75, 85, 92):
        jbytes, jssim = measure(jpeg(jq))
        low, high = 0, 100
        while low < high:                      # the lowest AVIF quality reaching the JPEG's SSIM
            mid = (low + high) // 2
            if measure(avif_encode(mid, work), lambda d: avif_decode(d, work))[1] >= jssim:
                high = mid
            else:
                low = mid + 1
        abytes, assim = measure(avif_encode(low, work), lambda d: avif_decode(d, work))
        print(f"FIGURE sweep jpeg_q {jq} ssim {jssim:.4f} bytes {jbytes} -> avif_q {low} ssim {assim:.4f} bytes {abytes} "
              f"ratio {abytes / jbytes:.3f}", flush=True)

    js = sum(ssim(p, Image.open(io.BytesIO(b))) for p, b in zip(ref, ours_jpg)) / len(ref)
    avs = sum(ssim(p, avif_decode(b, work)) for p, b in zip(ref, ours_avif)) / len(ref)
    jb, ab = sum(map(len, ours_jpg)), sum(map(len, ours_avif))
    print(f"FIGURE ours quality 85: jpeg ssim {js:.4f} bytes {jb}; avif ssim {avs:.4f} bytes {ab}; avif/jpeg bytes {ab / jb:.3f}")
    values = dict(line.rsplit(" ", 1) for line in metrics.splitlines() if line.startswith("tileserver_tile_render_seconds_"))
    count = float(values.get("tileserver_tile_render_seconds_count", 0))
    if count:
        print(f"FIGURE render per tile (decode, resample, encode; AVIF store, {int(count)} tiles): "
              f"{1000 * float(values['tileserver_tile_render_seconds_sum']) / count:.1f} ms mean")
    subprocess.run(["rm", "-rf", str(work)])


if __name__ == "__main__":
    main()
