"""Writes the IIIF validator's 1000 x 1000 test image: a 10 x 10 grid of 100 px squares coloured from the
validator package's own table. Usage: make-iiif-image.py OUT.png (needs iiif-validator and pillow)."""
import os
import sys

from iiif_validator.validator import ValidationInfo
from PIL import Image

out = sys.argv[1]
if os.path.exists(out):
    sys.exit(0)
info = ValidationInfo()
img = Image.new("RGB", (1000, 1000))
px = img.load()
for x in range(10):
    for y in range(10):
        colour = tuple(info.colorInfo[x][y])
        for i in range(100):
            for j in range(100):
                px[x * 100 + i, y * 100 + j] = colour
os.makedirs(os.path.dirname(out), exist_ok=True)
img.save(out + ".tmp.png")
os.replace(out + ".tmp.png", out)
