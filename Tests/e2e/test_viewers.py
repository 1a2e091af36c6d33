"""OpenSeadragon (DeepZoom and IIIF) and Leaflet (XYZ) against the server in Debian's Chromium: every tile
request succeeds, edge tiles have exactly the expected pixel sizes, screenshots are not blank."""
import io
import math
import re
import shutil
import subprocess
import sys
import urllib.parse

import pytest
from PIL import Image, ImageStat

from conftest import FIXTURES, ROOT, Server

PHOTO = FIXTURES.parent / "gallery" / "large.jpg"      # 3996 x 2582: neither side a multiple of 256
W, H, T = 3996, 2582, 256
MAX_LEVEL = math.ceil(math.log2(max(W, H)))
VENDOR = ROOT / ".build-vendor"
ARTIFACTS = ROOT / "artifacts"

OSD_PAGE = """<!doctype html><html><body style="margin:0;background:#222">
<div id="v" style="width:100vw;height:100vh"></div>
<script src="openseadragon.js"></script>
<script>
window.loaded = 0; window.failed = 0;
const viewer = OpenSeadragon({ id: 'v', tileSources: new URLSearchParams(location.search).get('source'),
  showNavigationControl: false, animationTime: 0, blendTime: 0, immediateRender: true });
viewer.addHandler('open', () => { window.opened = true; });
viewer.addHandler('open-failed', (e) => { window.openFailed = e.message; });
viewer.addHandler('tile-loaded', () => { window.loaded++; });
viewer.addHandler('tile-load-failed', () => { window.failed++; });
window.viewer = viewer;
</script></body></html>"""

LEAFLET_PAGE = """<!doctype html><html><head><link rel="stylesheet" href="leaflet/leaflet.css"></head>
<body style="margin:0"><div id="map" style="width:100vw;height:100vh;background:#222"></div>
<script src="leaflet/leaflet.js"></script>
<script>
(async () => {
  const info = await (await fetch('/api/images/' + new URLSearchParams(location.search).get('image'))).json();
  // Our levels are DeepZoom's: Leaflet zoom z on L.CRS.Simple is level z, full resolution at maxLevel.
  const map = L.map('map', { crs: L.CRS.Simple, minZoom: 0, maxZoom: info.maxLevel, zoomSnap: 1, fadeAnimation: false, zoomAnimation: false });
  const bounds = L.latLngBounds(map.unproject([0, info.height], info.maxLevel), map.unproject([info.width, 0], info.maxLevel));
  const layer = L.tileLayer(info.tiles, { tileSize: info.tileSize, minZoom: 0, maxNativeZoom: info.maxLevel,
    maxZoom: info.maxLevel, noWrap: true, bounds });
  window.loaded = 0; window.failed = 0;
  // Edge tiles are cut to the image: show them at their own size instead of stretching them to 256 px.
  layer.on('tileload', (e) => { e.tile.style.width = e.tile.naturalWidth + 'px'; e.tile.style.height = e.tile.naturalHeight + 'px'; window.loaded++; });
  layer.on('tileerror', () => { window.failed++; });
  layer.addTo(map);
  map.fitBounds(bounds);
  Object.assign(window, { map, bounds, ready: true });
})();
</script></body></html>"""


def level_size(level):
    shift = MAX_LEVEL - level
    return math.ceil(W / 2 ** shift), math.ceil(H / 2 ** shift)


def expected_tile_size(level, x, y):
    lw, lh = level_size(level)
    return min(T, lw - x * T), min(T, lh - y * T)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    subprocess.run([sys.executable, str(ROOT / "scripts/fetch-viewers.py"), str(VENDOR)], check=True)
    public = tmp_path_factory.mktemp("public")
    shutil.copy(VENDOR / "openseadragon.js", public)
    shutil.copytree(VENDOR / "leaflet", public / "leaflet")
    (public / "index.html").write_text("<p>viewers</p>")
    (public / "osd.html").write_text(OSD_PAGE)
    (public / "leaflet.html").write_text(LEAFLET_PAGE)
    s = Server([str(PHOTO), "--public", str(public), "--access-log", "off"])
    yield s
    s.stop()


class TileWatch:
    """Records every tile response with its decoded size."""

    def __init__(self, page):
        self.tiles = []
        self.bad = []
        page.on("response", self.on_response)

    def on_response(self, response):
        url = response.url.split("://", 1)[1].split("/", 1)[1]
        if response.status >= 400:
            self.bad.append((response.status, url))
            return
        if "_files/" in url or "/tiles/" in url or url.startswith("iiif/3/large/") and not url.endswith("info.json"):
            size = Image.open(io.BytesIO(response.body())).size
            self.tiles.append(("/" + url, size))


def settle(page, condition):
    page.wait_for_function(condition, timeout=60_000)
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(300)


def not_blank(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    shot = Image.open(io.BytesIO(page.screenshot(path=str(ARTIFACTS / name)))).convert("RGB")
    assert max(ImageStat.Stat(shot).stddev) > 10, f"{name} looks blank"


def check_grid_tiles(tiles, pattern):
    """Tiles addressed by level/x/y have exactly the sizes of the DeepZoom grid; returns how many edge tiles."""
    edges = 0
    for url, size in tiles:
        m = re.search(pattern, url)
        assert m, url
        level, x, y = (int(v) for v in m.groups())
        assert size == expected_tile_size(level, x, y), (url, size)
        edges += size[0] < T or size[1] < T
    return edges


def zoom_to_bottom_right_osd(page):
    page.evaluate("""() => { const v = window.viewer.viewport;
        v.zoomTo(v.getMaxZoom(), null, true);
        v.panTo(window.viewer.world.getItemAt(0).getBounds().getBottomRight(), true); }""")


def openseadragon(browser, site, source, name):
    """Opens `source` in OpenSeadragon, then zooms to the bottom-right corner at full resolution; screenshots
    both views and checks that no tile failed."""
    page = browser.new_page(viewport={"width": 1024, "height": 700})
    watch = TileWatch(page)
    page.goto(f"http://127.0.0.1:{site.port}/osd.html?source={source}")
    settle(page, "window.opened && window.loaded > 0")
    not_blank(page, f"{name}.png")
    zoom_to_bottom_right_osd(page)
    settle(page, "window.loaded > 0")
    not_blank(page, f"{name}-corner.png")
    assert page.evaluate("window.failed") == 0 and watch.bad == []
    return page, watch


def test_openseadragon_with_our_dzi(browser, site):
    page, watch = openseadragon(browser, site, "/images/large.dzi", "osd-dzi")
    assert len(watch.tiles) > 10
    edges = check_grid_tiles(watch.tiles, r"/images/large_files/(\d+)/(\d+)_(\d+)\.jpg$")
    assert edges > 0, "the corner view includes edge tiles"
    assert any(url.endswith(f"/{MAX_LEVEL}/15_10.jpg") for url, _ in watch.tiles), "the bottom-right full-resolution tile"
    page.close()


def test_openseadragon_with_our_info_json(browser, site):
    page, watch = openseadragon(browser, site, "/iiif/3/large/info.json", "osd-iiif")
    image_requests = [(u, s) for u, s in watch.tiles if not u.endswith("info.json")]
    assert len(image_requests) > 10
    corner = False
    for url, (w, h) in image_requests:
        m = re.search(r"/iiif/3/large/(full|\d+,\d+,\d+,\d+)/(\d*),(\d*)/0/default\.jpg$", url)
        assert m, url
        region, sw, sh = m.groups()
        rx, ry, rw, rh = (0, 0, W, H) if region == "full" else (int(v) for v in region.split(","))
        assert rx + rw <= W and ry + rh <= H, url
        if sw:
            assert w == int(sw), url
        if sh:
            assert h == int(sh), url
        scale = rw / w
        assert abs(h - rh / scale) < 1, (url, w, h)       # aspect kept, no rounding drift at the edges
        corner |= rx + rw == W and ry + rh == H and scale == 1
    assert corner, "the bottom-right full-resolution region was requested"
    page.close()


def test_leaflet_with_our_xyz_template(browser, site):
    page = browser.new_page(viewport={"width": 1024, "height": 700})
    watch = TileWatch(page)
    page.goto(f"http://127.0.0.1:{site.port}/leaflet.html?image=large")
    settle(page, "window.ready && window.loaded > 0")
    not_blank(page, "leaflet-fit.png")
    page.evaluate(f"() => window.map.setView(window.bounds.getSouthEast(), {MAX_LEVEL}, {{animate: false}})")
    settle(page, "window.loaded > 0")
    not_blank(page, "leaflet-corner.png")
    assert page.evaluate("window.failed") == 0 and watch.bad == []
    edges = check_grid_tiles(watch.tiles, r"/images/large/tiles/(\d+)/(\d+)/(\d+)\.jpg\?v=[0-9a-f]{12}$")
    assert edges > 0
    assert any(f"/tiles/{MAX_LEVEL}/15/10.jpg?v=" in url for url, _ in watch.tiles)
    # the edge tile is drawn at its own size, not stretched
    sizes = page.evaluate("""() => [...document.querySelectorAll('img.leaflet-tile')]
        .filter(t => t.src.includes('/15/10.jpg?v=')).map(t => [t.clientWidth, t.clientHeight])""")
    assert sizes == [[W - 15 * T, H - 10 * T]]
    page.close()


def test_openseadragon_opens_the_image_service_of_a_manifest(browser, site):
    """What a IIIF Presentation viewer does with our manifest: take the painting annotation's ImageService3 and
    open its info.json (here in OpenSeadragon)."""
    manifest = site.json("/iiif/manifest/large")
    service = manifest["items"][0]["items"][0]["items"][0]["body"]["service"][0]["id"]
    assert service.startswith(f"http://127.0.0.1:{site.port}/iiif/3/large@")
    page, watch = openseadragon(browser, site, urllib.parse.quote(service + "/info.json", safe=""), "osd-manifest")
    assert page.evaluate("window.loaded") > 10
    page.close()

