"""IIIF Presentation 3 against the real server on a folder tree: a Manifest per image and a Collection per folder,
validated by iiif-prezi3's models (from PyPI) and by the rules of the specification that those models leave to
the publisher; every URL in them answers, and ids follow Host and X-Forwarded-*."""
import io
import json
import shutil
import urllib.parse

import pytest
from iiif_prezi3 import Collection, Manifest
from PIL import Image

from conftest import FIXTURES, Server

CONTEXT = "http://iiif.io/api/presentation/3/context.json"


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    root = tmp_path_factory.mktemp("presentation") / "archive"
    (root / "2024/iceland").mkdir(parents=True)
    (root / "2024/rome").mkdir(parents=True)
    shutil.copy(FIXTURES / "baseline.jpg", root / "2024/iceland/Glacier at dawn.jpg")
    shutil.copy(FIXTURES / "rgba.png", root / "2024/iceland/ice.png")
    shutil.copy(FIXTURES / "orient-6.jpg", root / "2024/rome/forum.jpg")
    shutil.copy(FIXTURES / "gray.jpg", root / "cover.jpg")
    server = Server([str(root), "--access-log", "off"])
    yield server
    server.stop()


def get(server, url, headers=None):
    parts = urllib.parse.urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    response, body = server.get(path, headers=headers)
    assert response.status == 200, (url, response.status, body[:200])
    return response, body


def language_map(value):
    assert isinstance(value, dict) and value, value
    assert all(isinstance(v, list) and all(isinstance(s, str) for s in v) for v in value.values()), value


def check_manifest(server, doc, image):
    Manifest(**doc)
    assert doc["@context"] == CONTEXT and doc["type"] == "Manifest"
    assert doc["id"].startswith(f"http://127.0.0.1:{server.port}/iiif/manifest/")
    language_map(doc["label"])
    [canvas] = doc["items"]
    assert canvas["type"] == "Canvas" and (canvas["width"], canvas["height"]) == (image["width"], image["height"])
    [page] = canvas["items"]
    [painting] = page["items"]
    assert page["type"] == "AnnotationPage" and painting["type"] == "Annotation"
    assert painting["motivation"] == "painting" and painting["target"] == canvas["id"]
    body = painting["body"]
    assert body["type"] == "Image" and body["format"] == "image/jpeg"
    assert (body["width"], body["height"]) == (image["width"], image["height"])
    [service] = body["service"]
    assert service["type"] == "ImageService3" and service["profile"] == "level2"
    _, info = get(server, service["id"] + "/info.json")
    info = json.loads(info)
    assert info["id"] == service["id"] and (info["width"], info["height"]) == (image["width"], image["height"])
    [thumbnail] = doc["thumbnail"]
    _, pixels = get(server, thumbnail["id"])
    assert Image.open(io.BytesIO(pixels)).size == (thumbnail["width"], thumbnail["height"])
    assert max(thumbnail["width"], thumbnail["height"]) <= 256
    [parent] = doc["partOf"]
    assert parent["type"] == "Collection"
    return parent["id"]


def test_every_image_has_a_valid_manifest(library):
    images = library.json("/api/images")["images"]
    assert len(images) == 4
    for image in images:
        response, body = get(library, image["manifest"], {"Accept": "application/ld+json"})
        assert response.getheader("Content-Type") == f'application/ld+json;profile="{CONTEXT}"'
        parent = check_manifest(library, json.loads(body), image)
        assert parent.endswith(image["collection"])
    glacier = library.json("/api/images/2024%2Ficeland%2Fglacier-at-dawn")
    label = json.loads(get(library, glacier["manifest"])[1])["label"]
    assert label == {"none": ["Glacier at dawn"]}, "the label is the file's own name"


def test_collections_walk_the_whole_tree(library):
    seen, manifests = set(), []
    todo = [f"http://127.0.0.1:{library.port}/iiif/collection"]
    while todo:
        url = todo.pop()
        doc = json.loads(get(library, url)[1])
        Collection(**doc)
        assert doc["@context"] == CONTEXT and doc["type"] == "Collection" and doc["id"] == url
        language_map(doc["label"])
        seen.add(url)
        for item in doc["items"]:
            language_map(item["label"])
            assert item["type"] in ("Collection", "Manifest")
            (todo if item["type"] == "Collection" else manifests).append(item["id"])
    assert len(seen) == 4          # the top, 2024, 2024/iceland, 2024/rome
    assert sorted(m.rsplit("/", 1)[1] for m in manifests) == sorted(
        urllib.parse.quote(i["id"], safe="") for i in library.json("/api/images")["images"])


def test_ids_follow_the_host_and_forwarded_headers(library):
    _, body = library.get("/iiif/manifest/cover", headers={"Host": "photos.example:8443"})
    assert json.loads(body)["id"] == "http://photos.example:8443/iiif/manifest/cover"
    _, body = library.get("/iiif/collection/2024", headers={"X-Forwarded-Proto": "https", "X-Forwarded-Host": "archive.example"})
    doc = json.loads(body)
    assert doc["id"] == "https://archive.example/iiif/collection/2024"
    assert all(item["id"].startswith("https://archive.example/iiif/") for item in doc["items"])


def test_a_broken_manifest_is_refused_by_the_model(library):
    """The validation above can fail: a Canvas of the wrong type is refused."""
    doc = json.loads(get(library, "/iiif/manifest/cover")[1])
    doc["items"][0]["type"] = "Page"
    with pytest.raises(Exception):
        Manifest(**doc)
