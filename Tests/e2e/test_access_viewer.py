"""The viewer in Chromium as a IIIF Authorization Flow 2.0 client of our own services: a tiered image shows its
public size with "Sign in to see full resolution"; signing in through the access service's window, the token
service and the probe shows it whole; signing out returns to the public size; a restricted image shows its name
with a lock; the folder grid signs in and out, names who is signed in and locks what they may not open, saying
why; a share link opens its folder on a phone and nothing else."""
import subprocess
import urllib.parse

import pytest

from conftest import ARTIFACTS, DESKTOP, PHONE, Server, binary

ACCESS = """\
[folder."works"]
max_public_size = 1000
[folder."staff"]
view = "restricted"
groups = ["staff"]
[folder."other"]
view = "restricted"
groups = ["staff"]
[folder."board"]
view = "restricted"
groups = ["board"]
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("access-viewer")
    for image, (w, h) in {"works/tiered": (3000, 2000), "staff/secret": (1600, 1200), "staff/plan": (1200, 900),
                          "other/elsewhere": (800, 600), "board/minutes": (900, 600)}.items():
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
    # Fit (0.342) is past the public size (1000 of 3000 px: 0.333): the picture is its public level drawn a little
    # larger, and signing in is offered.
    assert "Sign in to see more" in bar.inner_text()
    assert state(page)["public"]["width"] == 1000 and state(page)["upscale"] > 1, state(page)
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
    assert state(page)["maxZoom"] >= 1 and state(page)["public"] is None, state(page)
    assert page.evaluate("fetch('/images/works%2Ftiered/tiles/12/0/0.jpg').then(r => r.status)") == 200
    sign_out = page.locator("#account")
    assert sign_out.is_visible() and "alice" in sign_out.get_attribute("title") and "Sign out" in sign_out.inner_text()
    sign_out.click()
    page.wait_for_selector(".sign-in-bar", timeout=30_000)
    page.wait_for_function("window.tileViewer && window.tileViewer.state.ready", timeout=30_000)
    assert state(page)["public"]["width"] == 1000
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




def locks(page):
    """The folder cells of the grid that show a lock, by path, with why."""
    return page.evaluate("""Object.fromEntries([...document.querySelectorAll('#grid .cell.folder.locked-folder')]
                            .map(c => [c.dataset.id.slice('folder:'.length), c.title]))""")


@pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_grid_signs_in_and_out_names_the_user_and_locks_what_they_may_not_open(browser, site, device):
    label = "phone" if device is PHONE else "desktop"
    context = browser.new_context(**device)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"http://127.0.0.1:{site.port}/?folder=")
    page.wait_for_function("document.querySelectorAll('#grid .cell.folder').length === 4")
    account = page.locator("#grid-account")
    assert account.is_visible() and account.inner_text() == "Sign in"
    assert locks(page) == {"staff": "Sign in to see this folder", "other": "Sign in to see this folder",
                           "board": "Sign in to see this folder"}
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"grid-signed-out-{label}.png"))

    with context.expect_page() as opened:
        account.click()
    window = opened.value
    window.wait_for_load_state()
    window.fill("input[name=username]", "alice")
    window.fill("input[name=password]", "alice-pw")
    window.click("button[type=submit]")
    # The window closes; the grid is shown again as alice sees it: her name, Sign out, one lock with the reason.
    page.wait_for_function("document.getElementById('grid-account').textContent.includes('alice')", timeout=30_000)
    page.wait_for_function("document.querySelectorAll('#grid .cell.folder').length === 4")
    assert page.text_content("#grid-account .who") == "alice" and page.text_content("#grid-account .act") == "Sign out"
    assert page.locator("#grid-account .who").is_visible()
    assert locks(page) == {"board": "Signed in as alice; this folder is for the board group"}
    page.screenshot(path=str(ARTIFACTS / f"grid-signed-in-{label}.png"))

    page.goto(f"http://127.0.0.1:{site.port}/?folder=board")
    page.wait_for_selector(".cell.locked-file")
    assert page.get_attribute(".cell.locked-file", "title") == "Signed in as alice; 'minutes' is for the board group"
    page.click(".cell.locked-file")
    prompt = page.locator('.page[data-image="board/minutes"] .locked')
    prompt.wait_for(timeout=10_000)
    assert "Signed in as alice; 'minutes' is for the board group." in prompt.inner_text()
    top = page.locator("#account")
    assert top.is_visible() and "Sign out" in top.inner_text() and "alice" in top.get_attribute("aria-label")
    assert ("alice" in top.inner_text()) == (device is DESKTOP)      # a phone's top bar keeps the name for its title
    page.screenshot(path=str(ARTIFACTS / f"photo-signed-in-{label}.png"))

    top.click()                                           # sign out from the photo view
    page.wait_for_function("document.getElementById('account').textContent.includes('Sign in')", timeout=30_000)
    prompt.wait_for(timeout=10_000)
    assert "minutes is for signed-in viewers." in prompt.inner_text()
    page.goto(f"http://127.0.0.1:{site.port}/?folder=")
    page.wait_for_function("document.querySelectorAll('#grid .cell.folder.locked-folder').length === 3")
    assert account.inner_text() == "Sign in"
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
