"""ICC profiles the tests need that Debian's colour packages do not ship: Display P3 (how iPhones tag photos), written
as an ICC v2 matrix/TRC display profile: P3 primaries with the D65 white adapted to D50 (Bradford, as Apple's own
profile gives them) and the sRGB tone curve as a 1,024-entry table."""
import struct


def s15(v):
    return struct.pack(">i", round(v * 65536))


def xyz(x, y, z):
    return b"XYZ " + bytes(4) + s15(x) + s15(y) + s15(z)


def display_p3():
    curve = [round(65535 * (v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4)) for v in (i / 1023 for i in range(1024))]
    trc = b"curv" + bytes(4) + struct.pack(">I", 1024) + struct.pack(">1024H", *curve)
    text = b"Display P3 (tests)"
    desc = b"desc" + bytes(4) + struct.pack(">I", len(text) + 1) + text + b"\0" + bytes(12) + bytes(67)
    tags = [(b"desc", desc), (b"wtpt", xyz(0.964203, 1.0, 0.824905)), (b"rXYZ", xyz(0.515121, 0.241196, -0.001053)),
            (b"gXYZ", xyz(0.291977, 0.692245, 0.041885)), (b"bXYZ", xyz(0.157104, 0.066574, 0.784073)),
            (b"rTRC", trc), (b"gTRC", trc), (b"bTRC", trc), (b"cprt", b"text" + bytes(4) + b"No copyright\0")]
    table, data, start, placed = b"", b"", 128 + 4 + 12 * len(tags), {}
    for signature, body in tags:
        body += bytes(-len(body) % 4)
        if body not in placed:
            placed[body] = start + len(data)
            data += body
        table += signature + struct.pack(">II", placed[body], len(body))
    header = (struct.pack(">I", start + len(data)) + b"lcms" + struct.pack(">I", 0x02100000) + b"mntrRGB XYZ " + bytes(12)
              + b"acspAPPL" + bytes(24) + s15(0.9642) + s15(1.0) + s15(0.8249) + bytes(48))
    assert len(header) == 128
    return header + struct.pack(">I", len(tags)) + table + data
