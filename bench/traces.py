#!/usr/bin/env python3
"""Request traces of real IIIF viewers over a collection, and a replayer that sends them as a browser does.

  traces.py make SIZES_TSV OUTDIR [SEED]
      SIZES_TSV: lines "id<TAB>width<TAB>height". Writes OUTDIR/{mirador,uv,mixed}.txt, one IIIF Image API path
      "id/region/size/0/default.jpg" a line (or "id/info.json"):
      - mirador: what Mirador 3 asks for a manifest of the collection: info.json and a 120 px high thumbnail of
        every image, then OpenSeadragon's fitted view of four images and zooms into each, level by level, to
        full resolution (the visible 256 px tiles of a 1280 x 800 window, centre first, as OpenSeadragon orders them);
      - uv: the Universal Viewer's: 100 x 100 bounded thumbnails of all ("!100,100"), then the same deep zooms
        into three other images, with 512 px tiles as UV's OpenSeadragon asks (regions of two tiles, size 512);
      - mixed: random IIIF requests over every image: regions at all scales and sizes (tile-aligned and not,
        "w,", "!w,h", "full/max"), like the IIIF community's performance test's mixed set.
  traces.py replay HOST PORT PREFIX TRACE [CONNECTIONS]
      Sends the trace in order over CONNECTIONS (6) keep-alive connections, as a browser does: each connection
      takes the next request when its previous answer is in. PREFIX is put before every line ("/iiif/3/" for
      us, "/fcgi-bin/iipsrv.fcgi?IIIF=/path/" for IIPImage; an id gets SUFFIX from env ID_SUFFIX, ".tif").
      Prints "REPLAY requests=N seconds=S p50_ms=.. p99_ms=.. errors=E bytes=B".
"""
import http.client
import os
import random
import sys
import threading
import time


def read_sizes(path):
    out = []
    for line in open(path):
        parts = line.split()
        if len(parts) == 3:
            out.append((parts[0], int(parts[1]), int(parts[2])))
    return out


def deep_zoom(image, tile, view=(1280, 800), centre=(0.5, 0.5)):
    """OpenSeadragon on one IIIF image: the fitted view, then zoom x2 around `centre` to full resolution."""
    ident, w, h = image
    paths = [f"{ident}/info.json"]
    max_level = max(w, h).bit_length() - (0 if (max(w, h) & (max(w, h) - 1)) else 1)
    fit = min(view[0] / w, view[1] / h)
    zoom = fit
    while True:
        scale = 1.0
        while scale / 2 >= zoom:  # the level OSD draws: the smallest with at least the screen's resolution
            scale /= 2
        s = int(round(1 / scale))
        vw, vh = view[0] / zoom, view[1] / zoom
        cx, cy = centre[0] * w, centre[1] * h
        x0, y0 = max(0, cx - vw / 2), max(0, cy - vh / 2)
        x1, y1 = min(w, cx + vw / 2), min(h, cy + vh / 2)
        span = tile * s
        cols = range(int(x0 // span), int((x1 - 1) // span) + 1)
        rows = range(int(y0 // span), int((y1 - 1) // span) + 1)
        cells = [(c, r) for r in rows for c in cols]
        mc, mr = (cols.start + cols.stop - 1) / 2, (rows.start + rows.stop - 1) / 2
        cells.sort(key=lambda cr: (cr[0] - mc) ** 2 + (cr[1] - mr) ** 2)
        for c, r in cells:
            rx, ry = c * span, r * span
            rw, rh = min(span, w - rx), min(span, h - ry)
            size = (rw + s - 1) // s
            paths.append(f"{ident}/{rx},{ry},{rw},{rh}/{size},/0/default.jpg")
        if zoom >= 1.0:
            break
        zoom = min(1.0, zoom * 2)
    return paths


def make(sizes_path, outdir, seed=7):
    images = read_sizes(sizes_path)
    rnd = random.Random(seed)
    os.makedirs(outdir, exist_ok=True)
    mirador = []
    for ident, _, _ in images:
        mirador.append(f"{ident}/info.json")
    for ident, _, _ in images:
        mirador.append(f"{ident}/full/,120/0/default.jpg")
    for image in rnd.sample(images, min(4, len(images))):
        mirador += deep_zoom(image, 256, centre=(rnd.uniform(0.3, 0.7), rnd.uniform(0.3, 0.7)))
    uv = [f"{ident}/full/!100,100/0/default.jpg" for ident, _, _ in images]
    for image in rnd.sample(images, min(3, len(images))):
        uv += deep_zoom(image, 512, centre=(rnd.uniform(0.2, 0.8), rnd.uniform(0.2, 0.8)))
    mixed = []
    for _ in range(int(os.environ.get("MIXED", "1500"))):
        ident, w, h = rnd.choice(images)
        kind = rnd.random()
        if kind < 0.45:  # a tile of a random level
            s = 1 << rnd.randrange(0, max(1, max(w, h).bit_length() - 8))
            span = 256 * s
            c, r = rnd.randrange((w + span - 1) // span), rnd.randrange((h + span - 1) // span)
            rx, ry = c * span, r * span
            rw, rh = min(span, w - rx), min(span, h - ry)
            mixed.append(f"{ident}/{rx},{ry},{rw},{rh}/{(rw + s - 1) // s},/0/default.jpg")
        elif kind < 0.85:  # a region at some scale
            rw = rnd.randint(64, max(64, min(w, 4096)))
            rh = rnd.randint(64, max(64, min(h, 4096)))
            rx, ry = rnd.randrange(max(1, w - rw)), rnd.randrange(max(1, h - rh))
            rw, rh = min(rw, w - rx), min(rh, h - ry)
            out = rnd.choice([256, 400, 512, 800, 1024])
            # IIIF 3 refuses upscaling without "^": "!w,h" must not exceed the region's larger side
            box = min(out, max(rw, rh))
            size = f"!{box},{box}" if rnd.random() < 0.5 else f"{min(out, rw)},"
            mixed.append(f"{ident}/{rx},{ry},{rw},{rh}/{size}/0/default.jpg")
        else:  # the whole image at a small size
            mixed.append(f"{ident}/full/{rnd.choice(['!200,200', '400,', ',300', '!1024,1024'])}/0/default.jpg")
    for name, trace in (("mirador", mirador), ("uv", uv), ("mixed", mixed)):
        with open(os.path.join(outdir, name + ".txt"), "w") as fh:
            fh.write("\n".join(trace) + "\n")
        print(f"TRACE {name} requests={len(trace)}")


def replay(host, port, prefix, trace, connections=6):
    suffix = os.environ.get("ID_SUFFIX", "")
    lines = [l.strip() for l in open(trace) if l.strip()]
    paths = []
    for line in lines:
        ident, rest = line.split("/", 1)
        paths.append(prefix + ident + suffix + "/" + rest)
    lock = threading.Lock()
    state = {"next": 0, "errors": 0, "bytes": 0, "first_error": None}
    latencies = [0.0] * len(paths)
    begun = [0.0] * len(paths)

    def worker():
        conn = http.client.HTTPConnection(host, int(port), timeout=300)
        while True:
            with lock:
                i = state["next"]
                if i >= len(paths):
                    break
                state["next"] = i + 1
            t = time.perf_counter()
            try:
                conn.request("GET", paths[i])
                r = conn.getresponse()
                body = r.read()
                ok = r.status == 200 and (body[:2] == b"\xff\xd8" or paths[i].endswith("info.json"))
            except (OSError, http.client.HTTPException) as e:
                conn.close()
                conn = http.client.HTTPConnection(host, int(port), timeout=300)
                ok, body, r = False, b"", None
                err = repr(e)
            latencies[i] = time.perf_counter() - t
            begun[i] = t
            with lock:
                state["bytes"] += len(body)
                if not ok:
                    state["errors"] += 1
                    if state["first_error"] is None:
                        state["first_error"] = f"{paths[i]} -> {r.status if r else err} {body[:80]!r}"
        conn.close()

    start = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(int(connections))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - start
    ordered = sorted(latencies)
    if os.environ.get("TIMELINE"):  # one line per request: start and end (s from the first), path
        with open(os.environ["TIMELINE"], "w") as f:
            for i, p in enumerate(paths):
                f.write(f"{begun[i] - start:.3f} {begun[i] - start + latencies[i]:.3f} {p}\n")

    def pct(p):
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000

    print(f"REPLAY requests={len(paths)} seconds={seconds:.3f} p50_ms={pct(50):.1f} p99_ms={pct(99):.1f} "
          f"errors={state['errors']} bytes={state['bytes']}"
          + (f" first_error={state['first_error']}" if state["first_error"] else ""))


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "make":
        make(args[0], args[1], int(args[2]) if len(args) > 2 else 7)
    elif cmd == "replay":
        replay(*args)
    else:
        sys.exit(f"unknown command {cmd}")
