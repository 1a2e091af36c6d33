"""Starts the real tileserver binary on 127.0.0.1 for the end-to-end tests."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import http.client
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(os.environ.get("TILESERVER_FIXTURES", ROOT / ".build-fixtures")) / "formats"
ARTIFACTS = ROOT / "artifacts"
# The two screens the viewer's tests use: a desktop, and a phone at device-pixel ratio 3 with touch.
DESKTOP = {"viewport": {"width": 1440, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "has_touch": True, "is_mobile": True}
DEVICES = {"desktop": DESKTOP, "phone": PHONE}


def assert_iiif_validator_passes(port, image_id):
    """The public IIIF validator (PyPI's iiif-validator) at level 2 on `image_id`, which must be its test image."""
    validator = Path(sys.executable).parent / "iiif-validate.py"
    run = subprocess.run([sys.executable, str(validator), "-s", f"127.0.0.1:{port}", "-p", "iiif/3",
                          "-i", image_id, "--version=3.0", "--level", "2"], capture_output=True, text=True, timeout=300)
    output = run.stdout + run.stderr
    print(output[-3000:])
    assert run.returncode == 0, output
    assert "(33 tests, 0 failures)" in output and " FAIL" not in output


def settled(page, rest=250):
    """The viewer's state once its view is in and no tile is loading (looked at again `rest` ms later)."""
    page.wait_for_function("window.tileViewer?.state.ready && window.tileViewer.state.pending === 0", timeout=60_000)
    page.wait_for_timeout(rest)
    page.wait_for_function("window.tileViewer.state.pending === 0", timeout=60_000)
    return page.evaluate("window.tileViewer.state")


def viewer_page(browser, device, fading=False):
    """A new browser context on `device` and a page in it, whose script errors gather in `page.errors`."""
    context = browser.new_context(fading=fading, **device)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return context, page


def touch_swipe(context, page, x0, x1, y):
    """A one-finger touch swipe through the DevTools protocol (real touch events, as a phone sends them): down at
    (x0, y), eight moves to (x1, y), up."""
    cdp = context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y}]})
    for i in range(1, 9):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x0 + (x1 - x0) * i / 8, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def free_port() -> int:
    """A TCP port on 127.0.0.1 nothing listens on now (for nginx and other helpers the tests start)."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def binary() -> str:
    """TILESERVER_BIN when set (the benches' release builds), else the debug build, else the release build."""
    if os.environ.get("TILESERVER_BIN"):
        return os.environ["TILESERVER_BIN"]
    for candidate in (ROOT / ".build/debug/tileserver", ROOT / ".build/release/tileserver"):
        if candidate.exists():
            return str(candidate)
    raise RuntimeError("build tileserver first (swift build)")


class Server:
    """A running `tileserver serve` with its port and output."""

    def __init__(self, args, env=None, cwd=None, executable=None):
        # Every server gets a tile store of its own unless the test names one: tests never share tiles.
        self.store = None
        if "--store-dir" not in args and "TILESERVER_STORE_DIR" not in (env or {}):
            self.store = tempfile.mkdtemp(prefix="tileserver-store-")
            args = [*args, "--store-dir", self.store]
        self.process = subprocess.Popen(
            [executable or binary(), "serve", "--host", "127.0.0.1", "--port", "0", *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, **(env or {})}, cwd=cwd)
        self.lines = []
        deadline = time.time() + 20
        while time.time() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            self.lines.append(line)
            match = re.search(r"on 127\.0\.0\.1:(\d+)", line)
            if match:
                self.port = int(match.group(1))
                return
        self.process.kill()
        raise RuntimeError("server did not start: " + "".join(self.lines) + self.process.stdout.read())

    def connection(self, timeout=30):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def get(self, path, headers=None, method="GET", timeout=30):
        conn = self.connection(timeout)
        conn.request(method, path, headers=headers or {})
        response = conn.getresponse()
        body = response.read()
        conn.close()
        return response, body

    def json(self, path):
        response, body = self.get(path)
        assert response.status == 200, (path, response.status, body)
        return json.loads(body)

    def wait_for_index(self, timeout=60):
        """Until the search index has read every file's metadata (it starts after the server does)."""
        deadline = time.time() + timeout
        while not self.json("/api/images?q=x")["indexing"]["complete"] and time.time() < deadline:
            time.sleep(0.2)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
        rest = self.process.stdout.read() if self.process.stdout else ""
        if self.store:
            shutil.rmtree(self.store, ignore_errors=True)
        return self.process.returncode, "".join(self.lines) + (rest or "")


@pytest.fixture(scope="session")
def server():
    """Three fixture images; short header timeout so the 408 test is quick."""
    s = Server([str(FIXTURES / "baseline.jpg"), str(FIXTURES / "wide-9024x3.jpg"), str(FIXTURES / "tiny-1x1.png"),
                "--header-timeout", "1", "--access-log", "off"])
    yield s
    s.stop()


CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


# The Keys panel's "keep the controls shown", set before the viewer's scripts run: faded controls give the photo
# their space, so a test that measures the view after a pause would otherwise measure another area.
KEEP_CONTROLS = "try { localStorage.setItem('tileserver.controls', 'stay') } catch {}"


class Browser:
    """Chromium whose new contexts and pages keep the viewer's controls shown, unless asked with `fading=True`
    (the tests of the fading itself)."""

    def __init__(self, browser):
        self._browser = browser

    def __getattr__(self, name):
        return getattr(self._browser, name)

    def new_context(self, fading=False, **options):
        context = self._browser.new_context(**options)
        if not fading:
            context.add_init_script(KEEP_CONTROLS)
        return context

    def new_page(self, fading=False, **options):
        page = self._browser.new_page(**options)
        if not fading:
            page.add_init_script(KEEP_CONTROLS)
        return page


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, driven by Playwright (no browser download), one per test module."""
    import playwright.sync_api as playwright_api
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield Browser(b)
        b.close()
