"""The viewer's parts as issue 59 asks them to be, read from public/: files of at most 300 lines, one declared state
that modules change only through `set` with declared fields, nothing written onto another module's object, and
one key table (keys.js) that alone listens to the window's keys. The behaviour itself is the viewer tests'."""
import re
from pathlib import Path

PUBLIC = Path(__file__).resolve().parents[2] / "public"
MODULES = sorted(PUBLIC.glob("*.js"))


def test_every_viewer_file_is_at_most_300_lines():
    long = {p.name: len(p.read_text().splitlines()) for p in MODULES + [PUBLIC / "index.html", PUBLIC / "style.css"]}
    assert {n: c for n, c in long.items() if c > 300} == {}


def declared_fields():
    text = (PUBLIC / "state.js").read_text()
    body = text[text.index("Object.seal({"):text.index("});")]
    return set(re.findall(r"^  (\w+):", body, re.M))


def test_modules_change_only_declared_state_fields_through_set():
    fields = declared_fields()
    assert {"mode", "folderPath", "images", "index", "sort"} <= fields, fields
    used = set()
    for path in MODULES:
        if path.name == "state.js":
            continue
        text = path.read_text()
        for call in re.findall(r"\bset\(\{([^}]*)\}\)", text):
            used |= set(re.findall(r"(\w+):", call)) | {m for m in re.findall(r"(?:^|,)\s*(\w+)\s*(?=,|$)", call)}
        for name in re.findall(r"\bon\('(\w+)'", text):
            used.add(name)
        assert not re.search(r"\bstate\.\w+\s*=[^=]", text), f"{path.name} writes the state without set()"
    assert used and used <= fields, used - fields


def test_no_module_writes_onto_another_modules_object():
    owners = {"viewer": "viewer.js", "browse": "browse.js", "chrome": "chrome.js", "slideshow": "slideshow.js",
              "info": "info-panel.js", "folderView": "folder-view.js", "nav": "gallery-nav.js"}
    for path in MODULES:
        for hub, owner in owners.items():
            if path.name == owner:
                continue
            found = re.findall(rf"\b{hub}\.(\w+)\s*=[^=]", path.read_text())
            assert not found, f"{path.name} writes {hub}.{found}"


def test_only_the_key_table_listens_to_the_windows_keys():
    listeners = {p.name for p in MODULES if re.search(r"window\.addEventListener\('keydown'", p.read_text())}
    assert listeners == {"keys.js"}, listeners
    keys = (PUBLIC / "keys.js").read_text()
    assert "const TABLE = [" in keys and "TABLE.filter((row) => row.label)" in keys and "TABLE.find(" in keys
