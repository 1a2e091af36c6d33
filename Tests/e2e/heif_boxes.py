"""HEIF files the tests need that Debian's heif-enc (libheif 1.15) cannot write: a photo with a rotation (`irot`) and a
grid image (how iPhones store a photo: HEVC tiles put together by a `grid` item), both assembled box by box
(ISO/IEC 23008-12, ISO/IEC 14496-12) from images heif-enc did encode."""
import struct
import subprocess
from pathlib import Path


def box(kind, body):
    return struct.pack(">I", 8 + len(body)) + kind + body


def full_box(kind, version, flags, body):
    return box(kind, struct.pack(">I", version << 24 | flags) + body)


def children(data, start=0, end=None):
    """(type, body start, box end) of each box in data[start:end]."""
    end = len(data) if end is None else end
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        body = at + 8
        if size == 1:
            size = struct.unpack(">Q", data[at + 8:at + 16])[0]
            body = at + 16
        elif size == 0:
            size = end - at
        yield kind, body, at + size
        at += size


def number(data, at, size):
    return int.from_bytes(data[at:at + size], "big") if size else 0


def read_single(path):
    """The primary image of a one-image HEIF file heif-enc wrote: its coded bytes and its property boxes (hvcC, ispe,
    colr…) in association order."""
    data = Path(path).read_bytes()
    meta = next((b, e) for k, b, e in children(data) if k == b"meta")
    inner = dict((k, (b, e)) for k, b, e in children(data, meta[0] + 4, meta[1]))
    primary = struct.unpack(">H", data[inner[b"pitm"][0] + 4:inner[b"pitm"][0] + 6])[0]
    # iloc: the primary item's extents.
    at, _ = inner[b"iloc"]
    version = data[at]
    sizes = data[at + 4] << 8 | data[at + 5]
    offset_size, length_size, base_size, index_size = sizes >> 12, sizes >> 8 & 15, sizes >> 4 & 15, sizes & 15
    at += 6
    count = number(data, at, 2 if version < 2 else 4)
    at += 2 if version < 2 else 4
    payload = None
    for _ in range(count):
        item = number(data, at, 2 if version < 2 else 4)
        at += 2 if version < 2 else 4
        if version in (1, 2):
            at += 2
        at += 2   # data reference index
        base = number(data, at, base_size)
        at += base_size
        extents = number(data, at, 2)
        at += 2
        pieces = []
        for _ in range(extents):
            if version in (1, 2):
                at += index_size
            offset, length = number(data, at, offset_size), number(data, at + offset_size, length_size)
            at += offset_size + length_size
            pieces.append(data[base + offset:base + offset + length])
        if item == primary:
            payload = b"".join(pieces)
    # iprp: ipco's boxes, and the primary item's associations in ipma.
    iprp = dict((k, (b, e)) for k, b, e in children(data, *inner[b"iprp"]))
    properties = [data[b - 8:e] for _, b, e in children(data, *iprp[b"ipco"])]
    at = iprp[b"ipma"][0]
    version, flags = data[at], number(data, at + 1, 3)
    entries = number(data, at + 4, 4)
    at += 8
    associated = []
    for _ in range(entries):
        item = number(data, at, 2 if version < 1 else 4)
        at += 2 if version < 1 else 4
        n = data[at]
        at += 1
        for _ in range(n):
            value = number(data, at, 2 if flags & 1 else 1)
            at += 2 if flags & 1 else 1
            if item == primary:
                associated.append(properties[(value & (0x7FFF if flags & 1 else 0x7F)) - 1])
    return payload, associated


def write(path, items, primary, references=()):
    """A HEIF file: items are dicts with `id`, `type` (4 bytes), `data`, `properties` (box bytes) and `hidden`;
    references are (type, from id, [to ids])."""
    properties = []
    for item in items:
        for p in item["properties"]:
            if p not in properties:
                properties.append(p)

    def meta(first_offset):
        hdlr = full_box(b"hdlr", 0, 0, b"\0" * 4 + b"pict" + b"\0" * 12 + b"\0")
        pitm = full_box(b"pitm", 0, 0, struct.pack(">H", primary))
        infe = b"".join(full_box(b"infe", 2, 1 if item.get("hidden") else 0, struct.pack(">HH", item["id"], 0) + item["type"] + b"\0")
                        for item in items)
        iinf = full_box(b"iinf", 0, 0, struct.pack(">H", len(items)) + infe)
        iref = full_box(b"iref", 0, 0, b"".join(box(kind, struct.pack(">HH", src, len(dst)) + b"".join(struct.pack(">H", d) for d in dst))
                                                for kind, src, dst in references)) if references else b""
        ipco = box(b"ipco", b"".join(properties))
        entries = b""
        for item in items:
            indexes = [properties.index(p) + 1 for p in item["properties"]]
            essential = [0x80 if properties[i - 1][4:8] in (b"hvcC", b"irot", b"av1C") else 0 for i in indexes]
            entries += struct.pack(">HB", item["id"], len(indexes)) + bytes(e | i for e, i in zip(essential, indexes))
        ipma = full_box(b"ipma", 0, 0, struct.pack(">I", len(items)) + entries)
        iprp = box(b"iprp", ipco + ipma)
        locations, offset = b"", first_offset
        for item in items:
            locations += struct.pack(">HHHII", item["id"], 0, 1, offset, len(item["data"]))
            offset += len(item["data"])
        iloc = full_box(b"iloc", 0, 0, struct.pack(">BBH", 0x44, 0x00, len(items)) + locations)
        return full_box(b"meta", 0, 0, hdlr + pitm + iinf + iref + iprp + iloc)

    ftyp = box(b"ftyp", b"heic" + struct.pack(">I", 0) + b"mif1heic")
    start = len(ftyp) + len(meta(0)) + 8
    mdat = box(b"mdat", b"".join(item["data"] for item in items))
    Path(path).write_bytes(ftyp + meta(start) + mdat)


def ispe(width, height):
    return full_box(b"ispe", 0, 0, struct.pack(">II", width, height))


def rotated(source_heic, out, irot):
    """The one image of `source_heic` with an `irot` of `irot` quarter turns anticlockwise added."""
    payload, properties = read_single(source_heic)
    rotation = box(b"irot", bytes([irot & 3]))
    write(out, [{"id": 1, "type": b"hvc1", "data": payload, "properties": [*properties, rotation]}], primary=1)


def grid(picture, out, tile=1024, quality=92):
    """`picture` (any file vips reads) as a grid of `tile` px HEVC tiles, each encoded by heif-enc, edges padded by
    repeating the last pixels and cropped by the grid's output size."""
    width, height = (int(subprocess.run(["vipsheader", "-f", f, str(picture)], capture_output=True, text=True,
                                        check=True).stdout) for f in ("width", "height"))
    cols, rows = -(-width // tile), -(-height // tile)
    work = Path(str(out) + ".tiles")
    work.mkdir(exist_ok=True)
    padded = work / "padded.v"
    subprocess.run(["vips", "embed", str(picture), str(padded), "0", "0", str(cols * tile), str(rows * tile), "--extend", "copy"],
                   check=True)
    items = []
    for r in range(rows):
        for c in range(cols):
            piece = work / f"{r}-{c}.png"
            subprocess.run(["vips", "crop", str(padded), str(piece), str(c * tile), str(r * tile), str(tile), str(tile)], check=True)
            coded = work / f"{r}-{c}.heic"
            subprocess.run(["heif-enc", "-q", str(quality), "-p", "preset=ultrafast", str(piece), "-o", str(coded)], check=True,
                           capture_output=True)
            payload, properties = read_single(coded)
            items.append({"id": 1 + len(items), "type": b"hvc1", "data": payload, "properties": properties, "hidden": True})
    grid_id = 1 + len(items)
    descriptor = struct.pack(">BBBBHH", 0, 0, rows - 1, cols - 1, width, height)
    items.append({"id": grid_id, "type": b"grid", "data": descriptor, "properties": [ispe(width, height)]})
    write(out, items, primary=grid_id, references=[(b"dimg", grid_id, [i["id"] for i in items[:-1]])])
    subprocess.run(["rm", "-rf", str(work)], check=True)
    return rows * cols
