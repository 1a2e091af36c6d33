"""Fetches OpenSeadragon 6.1.1 and Leaflet 1.9.3 for the browser tests from PyPI distributions (never committed):
OpenSeadragon from the openslide-python 1.4.7 sdist (examples/deepzoom/static/openseadragon.js), Leaflet from
the django-leaflet 0.34.0 wheel (leaflet/static/leaflet/). Usage: fetch-viewers.py OUT_DIR (idempotent)."""
import io
import shutil
import subprocess
import os
import sys
import tarfile
import zipfile

out = sys.argv[1]
marker = os.path.join(out, ".complete")
if os.path.exists(marker):
    sys.exit(0)
os.makedirs(out, exist_ok=True)


def download(requirement, kind):
    """`pip download` of one distribution (kind: sdist or wheel) into a scratch folder; returns its bytes."""
    scratch = os.path.join(out, ".download")
    os.makedirs(scratch, exist_ok=True)
    flag = "--no-binary" if kind == "sdist" else "--only-binary"
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", flag, ":all:", requirement, "-d", scratch],
                   check=True)
    name = requirement.split("==")[0].replace("-", "_")
    path = next(os.path.join(scratch, f) for f in os.listdir(scratch) if f.lower().startswith(name.lower()))
    with open(path, "rb") as f:
        return f.read()


sdist = tarfile.open(fileobj=io.BytesIO(download("openslide-python==1.4.7", "sdist")))
member = next(m for m in sdist.getmembers() if m.name.endswith("examples/deepzoom/static/openseadragon.js"))
with open(os.path.join(out, "openseadragon.js"), "wb") as f:
    f.write(sdist.extractfile(member).read())

wheel = zipfile.ZipFile(io.BytesIO(download("django-leaflet==0.34.0", "wheel")))
for name in wheel.namelist():
    if name.startswith("leaflet/static/leaflet/") and not name.endswith("/"):
        target = os.path.join(out, "leaflet", name[len("leaflet/static/leaflet/"):])
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(wheel.read(name))
shutil.rmtree(os.path.join(out, ".download"))
open(marker, "w").close()
