"""Broken and hostile images served beside good ones: every request for a bad one gets a quick JSON error (or, for
files that still decode, an image), the good ones keep working, memory stays within the budgets, and `info` and
`build` on each bad file say what is wrong in one line with a non-zero exit."""
import json
import shutil
import subprocess
import time
import urllib.parse

import pytest

import hostile_files
from conftest import FIXTURES, Server, binary


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("hostile")
    kinds = hostile_files.make(out, FIXTURES)
    shutil.copy(FIXTURES / "baseline.jpg", out / "good-photo.jpg")
    shutil.copy(FIXTURES / "rgb.png", out / "good-drawing.png")
    return out, kinds


def run(*args, timeout=120):
    started = time.monotonic()
    result = subprocess.run([binary(), *args], capture_output=True, text=True, timeout=timeout)
    return result, time.monotonic() - started


def test_info_refuses_files_broken_in_their_header_in_one_line(folder):
    out, kinds = folder
    for name, kind in kinds.items():
        result, _ = run("info", str(out / name))
        if kind == "header":
            assert result.returncode != 0, name
            lines = result.stderr.strip().splitlines()
            assert len(lines) == 1 and name in lines[0], (name, result.stderr)
        else:
            assert result.returncode == 0 or len(result.stderr.strip().splitlines()) == 1, (name, result.stderr)


def test_build_refuses_every_broken_file_in_one_line_and_leaves_nothing(folder, tmp_path):
    out, kinds = folder
    for name, kind in kinds.items():
        target = tmp_path / name
        result, seconds = run("build", str(out / name), "--out", str(target), "--quiet")
        assert seconds < 60, (name, seconds)
        if kind in ("header", "data"):
            assert result.returncode != 0, name
            lines = result.stderr.strip().splitlines()
            assert len(lines) == 1 and name in lines[0], (name, result.stderr)
            leftovers = list(target.rglob("*")) if target.exists() else []
            assert leftovers == [], (name, leftovers[:3])
        elif result.returncode != 0:
            assert len(result.stderr.strip().splitlines()) == 1, (name, result.stderr)


def vm_hwm_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def test_the_server_answers_every_bad_file_quickly_and_keeps_serving_the_good_ones(folder, tmp_path):
    out, kinds = folder
    server = Server([str(out), "--cache-mb", "64", "--access-log", "off", "--raster-dir", str(tmp_path)])
    try:
        listed = {image["id"] for image in server.json("/api/images?limit=10000")["images"]}
        assert {"good-photo", "good-drawing"} <= listed
        slowest = 0.0
        for name in sorted(kinds):
            image_id = urllib.parse.quote(name.rsplit(".", 1)[0])
            for path in (f"/images/{image_id}/tiles/0/0/0.jpg", f"/images/{image_id}/tiles/9/1/0.png",
                         f"/iiif/3/{image_id}/full/300,/0/default.jpg", f"/iiif/3/{image_id}/info.json",
                         f"/api/images/{image_id}", f"/iiif/manifest/{image_id}"):
                started = time.monotonic()
                response, body = server.get(path)
                slowest = max(slowest, time.monotonic() - started)
                if response.status != 200:
                    assert response.getheader("Content-Type") == "application/json", (path, response.status)
                    assert json.loads(body)["error"], path
                    assert response.status < 600
                    assert not name.startswith(("icc-", "xmp-", "iptc-")), f"{name}: a bad profile or metadata block broke {path}"
            response, _ = server.get("/images/good-photo/tiles/9/0/0.jpg")
            assert response.status == 200, f"the good image stopped working after {name}"
        assert slowest < 30, slowest
        for path in ("/healthz", "/images/good-drawing/tiles/10/1/1.png", "/iiif/3/good-photo/full/max/0/default.png"):
            response, _ = server.get(path)
            assert response.status == 200, path
        assert vm_hwm_mb(server.process.pid) < 64 + 512 + 100
    finally:
        code, log = server.stop()
    assert code == 0, log[-2000:]
