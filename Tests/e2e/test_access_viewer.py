"""The viewer in Chromium as a IIIF Authorization Flow 2.0 client of our own services: a tiered image shows its
public size with "Sign in to see full resolution"; signing in through the access service's window, the token
service and the probe shows it whole; signing out returns to the public size; a restricted image shows its name
with a lock; a share link opens its folder on a phone and nothing else."""
import subprocess
import urllib.parse

import pytest

from conftest import Server, binary

ACCESS = """\
[folder."works"]
max_public_size = 1000
[folder."staff"]
view = "restricted"
groups = ["staff"]
[folder."other"]
view = "restricted"
groups = ["staff"]
"""
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("access-viewer")
    for image, (w, h) in {"works/tiered": (3000, 2000), "staff/secret": (1600, 1200), "staff/plan": (1200, 900),
                          "other/elsewhere": (800, 600)}.items():
        (root / "lib" / image).parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["vips", "gaussnoise", str(root / "lib" / image) + ".jpg", str(w), str(h)], check=True)
    (root / "access.toml").write_text(ACCESS)
    users, secret = str(root / "users"), str(root / "secret")
    subprocess.run([binary(), "user", "add", "alice", "--group", "staff", "--users", users], input="alice-pw\n", text=True, check=True)
    server = Server([str(root / "lib"), "--access", str(root / "access.toml"), "--users", users, "--secret-file", secret,
                     "--access-log", "off"])
    server.secret = secret
    server.lib = root / "lib"
    yield server
    server.stop()


def state(page):
    return page.evaluate("window.tileViewer.state")


def open_page(browser, site, path, device=None):
    context = browser.new_context(**(device or {"viewport": {"width": 1200, "height": 800}}))
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"http://127.0.0.1:{site.port}{path}")
    page.wait_for_function("window.tileViewer && window.tileViewer.state.ready", timeout=30_000)
    return context, page, errors


def test_sign_in_shows_full_resolution_and_sign_out_the_public_size(browser, site):
    context, page, errors = open_page(browser, site, "/?image=works%2Ftiered")
    refused = []
    page.on("response", lambda r: r.status in (401, 403) and "/tiles/" in r.url and refused.append(r.url))
    bar = page.locator(".sign-in-bar")
    bar.wait_for(timeout=10_000)
    assert "Sign in to see full resolution" in bar.inner_text()
    # The closest zoom is the deepest level within the public size (1000 px): 750 of the 3000 px long side.
    assert abs(state(page)["maxZoom"] - 750 / 3000) < 0.01, state(page)
    page.keyboard.press("+")
    page.keyboard.press("+")
    page.wait_for_timeout(800)
    assert not refused, refused
    with context.expect_page() as opened:
        bar.get_by_role("button", name="Sign in").click()
    window = opened.value
    window.wait_for_load_state()
    assert "/auth/login" in window.url
    window.fill("input[name=username]", "alice")
    window.fill("input[name=password]", "alice-pw")
    window.click("button[type=submit]")
    # The window closes itself; the viewer gets a token, probes again and shows the image whole.
    page.wait_for_function("!document.querySelector('.sign-in-bar') && window.tileViewer && window.tileViewer.state.ready", timeout=30_000)
    assert window.is_closed()
    assert state(page)["maxZoom"] >= 1, state(page)
    assert page.evaluate("fetch('/images/works%2Ftiered/tiles/12/0/0.jpg').then(r => r.status)") == 200
    sign_out = page.locator("#sign-out")
    assert sign_out.is_visible() and "alice" in sign_out.get_attribute("title")
    sign_out.click()
    page.wait_for_selector(".sign-in-bar", timeout=30_000)
    page.wait_for_function("window.tileViewer && window.tileViewer.state.ready", timeout=30_000)
    assert abs(state(page)["maxZoom"] - 750 / 3000) < 0.01
    assert page.evaluate("fetch('/images/works%2Ftiered/tiles/12/0/0.jpg').then(r => r.status)") == 401
    assert not errors, errors
    context.close()


def test_a_restricted_image_shows_its_name_with_a_lock(browser, site):
    context, page, errors = open_page(browser, site, "/?image=staff%2Fsecret")
    lock = page.locator('.page[data-image="staff/secret"] .locked')
    lock.wait_for(timeout=10_000)
    assert "secret" in lock.inner_text() and lock.get_by_role("button", name="Sign in").is_visible()
    assert page.evaluate("document.querySelectorAll('.page[data-image=\"staff/secret\"] img').length") == 0
    page.goto(f"http://127.0.0.1:{site.port}/?folder=staff")
    page.wait_for_selector(".cell.locked-file", timeout=10_000)
    assert page.locator(".cell.locked-file").count() == 2
    assert not errors, errors
    context.close()


def test_a_share_link_opens_its_folder_on_a_phone_and_nothing_else(browser, site):
    line = subprocess.run([binary(), "share", "staff", "--library", str(site.lib), "--expires", "1h", "--secret-file", site.secret],
                          capture_output=True, text=True, check=True).stdout
    link = line.split()[-1]
    assert link.startswith("/?folder=staff&share=")
    context, page, errors = open_page(browser, site, link, device=PHONE)
    page.wait_for_selector(".cell", timeout=10_000)
    assert page.locator(".cell.locked-file").count() == 0
    names = page.locator(".cell .name").all_inner_texts()
    assert sorted(names) == ["plan", "secret"], names
    page.locator(".cell").first.click()
    page.wait_for_function("window.tileViewer.state.mode === 'zoom' && window.tileViewer.state.ready && !window.tileViewer.state.error",
                           timeout=30_000)
    # Tiles, neighbours and the listing come with the link's cookie; another restricted folder stays closed.
    assert page.evaluate("fetch('/images/staff%2Fplan/tiles/11/0/0.jpg').then(r => r.status)") == 200
    assert page.evaluate("fetch('/images/other%2Felsewhere/tiles/10/0/0.jpg').then(r => r.status)") == 401
    assert page.evaluate("fetch('/api/images/other%2Felsewhere').then(r => r.status)") == 401
    assert not errors, errors
    context.close()
