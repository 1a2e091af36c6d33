"""Search results are an album (issue 60, item 9): a photo opened from the results pages through the results in
their order (arrows, swipes, the slideshow), Escape and Back return to them, a reload keeps them, a shared link
does not carry them; and the heading always says the words whose results are on screen. In Chromium, on a
1440 × 900 desktop and a 390 × 844 phone at device-pixel ratio 3, against the real server on tagged files."""
import shutil
import subprocess

import pytest

from conftest import ARTIFACTS, DESKTOP, DEVICES, FIXTURES, PHONE, Server, touch_swipe, viewer_page

PHOTO = FIXTURES / "baseline.jpg"
# In name order; north's own order puts b-field between its two results.
RESULTS = ["north/a-harbour", "south/b-harbour", "north/c-harbour"]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("album") / "photos"
    for folder, names in {"north": ["a-harbour", "b-field", "c-harbour"], "south": ["a-field", "b-harbour"]}.items():
        (root / folder).mkdir(parents=True)
        for name in names:
            shutil.copy(PHOTO, root / folder / f"{name}.jpg")
            if "harbour" in name:
                subprocess.run(["exiftool", "-q", "-overwrite_original", "-Keywords=harbour",
                                str(root / folder / f"{name}.jpg")], check=True)
    subprocess.run(["exiftool", "-q", "-overwrite_original", "-XMP-dc:Description=An evening on the Seine",
                    str(root / "south" / "a-field.jpg")], check=True)
    server = Server([str(root), "--access-log", "off"])
    server.wait_for_index()
    yield server
    server.stop()


def state(page):
    page.wait_for_function("window.tileViewer?.state.ready && window.tileViewer.state.pending === 0")
    return page.evaluate("window.tileViewer.state")


def shown(page, image_id):
    page.wait_for_function(f"window.tileViewer?.state.image === {image_id!r} && window.tileViewer.state.ready")
    return state(page)


def heading(page):
    return page.text_content("#crumbs [aria-current=page]")


@pytest.mark.parametrize("device", DEVICES.values(), ids=DEVICES.keys())
def test_results_page_as_an_album_and_the_heading_says_the_words(served, browser, device):
    context, page = viewer_page(browser, device)
    errors = page.errors
    label = next(k for k, d in DEVICES.items() if d is device)
    page.goto(f"http://127.0.0.1:{served.port}/?folder=north")
    page.wait_for_function("document.querySelectorAll('#grid .cell').length === 3")

    # The heading follows the words typed, never an earlier search's.
    page.fill("#search", "seine")
    page.wait_for_function("document.querySelector('#crumbs [aria-current=page]')?.textContent.includes('seine')")
    page.fill("#search", "evening seine")
    page.wait_for_function("location.search === '?q=evening%20seine'")
    page.wait_for_function("document.querySelectorAll('#grid .cell').length === 1")
    assert heading(page) == "“evening seine”: 1 photo"

    page.fill("#search", "harbour")
    page.wait_for_function("document.querySelectorAll('#grid .cell').length === 3")
    assert heading(page) == "“harbour”: 3 photos"
    assert page.eval_on_selector_all("#grid .cell", "c => c.map(x => x.dataset.id)") == RESULTS
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"search-album-results-{label}.png"))

    # Opened from the results, the photo pages through them, not through its folder.
    page.click(f"#grid .cell[data-id='{RESULTS[0]}']")
    first = shown(page, RESULTS[0])
    assert first["album"] == "harbour" and first["count"] == 3 and first["index"] == 0
    assert page.text_content("#to-folder") == "“harbour”"
    assert "q=harbour" in page.evaluate("location.search")
    if device is PHONE:
        touch_swipe(context, page, 330, 40, 600)
    else:
        page.keyboard.press("ArrowRight")
    shown(page, RESULTS[1])                               # across into another folder, not north/b-field
    if device is PHONE:
        touch_swipe(context, page, 330, 40, 600)
    else:
        page.keyboard.press("ArrowRight")
    third = shown(page, RESULTS[2])
    assert third["album"] == "harbour" and third["index"] == 2
    page.screenshot(path=str(ARTIFACTS / f"search-album-photo-{label}.png"))

    # A reload keeps the album; a shared link is the photo alone.
    page.reload()
    again = shown(page, RESULTS[2])
    assert again["album"] == "harbour" and again["count"] == 3 and again["index"] == 2
    shared = page.evaluate("(async () => { let copied = null; navigator.clipboard.writeText = async (t) => { copied = t; };"
                           " document.getElementById('share').click(); await new Promise(r => setTimeout(r, 200)); return copied; })()")
    assert shared is not None and "q=" not in shared and shared.endswith("?image=north%2Fc-harbour"), shared

    # The slideshow goes through the results too, from the first.
    page.evaluate("window.tileViewer.goTo(0)")
    shown(page, RESULTS[0])
    page.evaluate("(() => { const s = document.getElementById('slide-interval'); s.value = '2'; s.dispatchEvent(new Event('change')); })()")
    page.evaluate("document.getElementById('play').click()")
    shown(page, RESULTS[1])
    page.mouse.move(10, 10)
    page.keyboard.press("x")                              # any other key stops it

    # Escape returns to the results, the photo just viewed focused, the heading still the words.
    page.focus("#viewer")
    page.keyboard.press("Escape")                         # at once: the photo's history entry names it all the same
    page.wait_for_function("window.tileViewer.state.mode === 'folder' && location.search === '?q=harbour'")
    page.wait_for_function(f"document.activeElement?.dataset?.id === {RESULTS[1]!r}")
    assert heading(page) == "“harbour”: 3 photos"

    # Back and Forward: the browser's history steps between the results and the album's photos.
    page.go_back()
    page.wait_for_function("window.tileViewer.state.mode === 'zoom'")
    assert shown(page, RESULTS[1])["album"] == "harbour"

    # Opened from a folder, the same photo pages through its folder again.
    page.goto(f"http://127.0.0.1:{served.port}/?image={RESULTS[0].replace('/', '%2F')}")
    plain = shown(page, RESULTS[0])
    assert plain["album"] == "" and plain["count"] == 3
    page.keyboard.press("ArrowRight")
    shown(page, "north/b-field")
    assert errors == [], errors
    context.close()
