"""The README stays a front door that tells the truth: at most 200 lines; its "What is here" names every folder of
Sources/ and every target of Package.swift, and every path it names exists; its options table is exactly what
`tileserver serve --help` lists; and each figure in its prose also stands in docs/, where figures live."""
import re
import subprocess
from pathlib import Path

from conftest import ROOT, binary

README = (ROOT / "README.md").read_text()


def section(title):
    match = re.search(r"^## " + re.escape(title) + r"\n(.*?)(?=^## |\Z)", README, re.M | re.S)
    assert match, title
    return match.group(1)


def test_the_readme_is_short():
    assert len(README.splitlines()) <= 200


def test_what_is_here_matches_the_tree_and_the_package():
    table = section("What is here")
    named = [cell for row in re.findall(r"^\| (.+?) \|", table, re.M) for cell in re.findall(r"`([^`]+)`", row)]
    assert named
    for path in named:
        assert list(ROOT.glob(path.rstrip("/"))), f"What is here names {path}, which does not exist"
    covered = set()
    for path in named:
        covered |= {p.name for p in ROOT.glob(path.rstrip("/")) if p.parent == ROOT / "Sources"}
    folders = {p.name for p in (ROOT / "Sources").iterdir() if p.is_dir()}
    assert folders - covered == set(), f"Sources folders What is here leaves out: {folders - covered}"
    manifest = (ROOT / "Package.swift").read_text()
    targets = set(re.findall(r'\.(?:target|executableTarget|systemLibrary|plugin)\(\s*name: "(\w+)"', manifest))
    mentioned = set(re.findall(r"\w+", table))
    unnamed = {t for t in targets if t not in covered and t not in mentioned}
    assert unnamed == set(), f"targets What is here does not name: {unnamed}"


def test_the_options_table_is_what_serve_help_lists():
    table = section("Options of `tileserver serve`")
    documented = re.findall(r"^\| `(--[a-z-]+)` \| `(TILESERVER_[A-Z_]+)` \|", table, re.M)
    help_text = subprocess.run([binary(), "serve", "--help"], capture_output=True, text=True, check=True).stdout
    listed = re.findall(r"^\s+(--[a-z-]+) \((TILESERVER_[A-Z_]+)\)", help_text, re.M)
    assert listed and sorted(documented) == sorted(listed)


def test_figures_in_the_readme_stand_in_docs():
    prose = re.sub(r"```.*?```", "", README, flags=re.S)
    prose = prose.replace(section("Options of `tileserver serve`"), "")  # settings and their defaults, not figures
    docs = "\n".join(p.read_text() for p in (ROOT / "docs").glob("*.md"))
    figures = {f for f in re.findall(r"(?<![\w.])\d[\d,.]*\d(?![\w.])", prose) if len(f.replace(",", "")) >= 3}
    assert figures, "the check found no figure to check"
    missing = {f for f in figures if f not in docs}
    assert missing == set(), f"figures in the README that docs/ does not hold: {sorted(missing)}"


def test_every_source_path_the_docs_and_the_viewer_name_exists():
    """A file or folder of Sources/ named in docs/, README.md or the viewer's comments (`Sources/Pyramid/Zoom`,
    after it moved) sends the next reader nowhere."""
    texts = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "public").glob("*.js"))]
    missing = []
    for path in texts:
        for named in re.findall(r"(?<![\w/])Sources/[A-Za-z0-9_./+*-]*[A-Za-z0-9_*]", path.read_text()):
            if not list(ROOT.glob(named)):
                missing.append(f"{path.relative_to(ROOT)}: {named}")
    assert not missing, missing


def test_every_import_is_an_edge_the_architecture_lists():
    """Dependencies point down as docs/architecture.md draws them: each target's `import`s of our own targets are
    among those its row names (`TileServer`: all of them). An edge the picture does not have fails here."""
    text = (ROOT / "docs/architecture.md").read_text()
    rows = {}
    for match in re.finditer(r"^\| `(\w+)`(?: \(C\))? \| ([^|]*) \|", text, re.M):
        rows[match.group(1)] = set(re.findall(r"`(\w+)`", match.group(2)))
    ours = {p.name for p in (ROOT / "Sources").iterdir() if p.is_dir()}
    assert {"ImageValues", "TileGeometry", "TileAPI"} <= set(rows), rows.keys()
    wrong = []
    for target in sorted(ours):
        if target not in rows or target == "TileServer":
            continue
        for source in (ROOT / "Sources" / target).rglob("*.swift"):
            for imported in re.findall(r"^(?:@_exported |@testable )?import (\w+)", source.read_text(), re.M):
                if imported in ours and imported != target and imported not in rows[target]:
                    wrong.append(f"{source.relative_to(ROOT)} imports {imported}, which {target}'s row does not list")
    assert not wrong, wrong
