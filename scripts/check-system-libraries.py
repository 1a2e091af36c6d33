#!/usr/bin/env python3
"""Checks that every place naming the server's C libraries agrees with scripts/system-libraries.txt: the
system-library targets of Package.swift (module, pkg-config name, apt provider), the packages each stage of the
Dockerfile installs (build packages in the build stage, runtime packages in the last), and what
`scripts/install-deps.sh --list run` installs. Given a built binary, it also checks that each shared library the
binary needs (outside the Swift toolchain and libc) belongs to a runtime package of the list, as `dpkg -S` says.

    scripts/check-system-libraries.py [BINARY] [--root DIR]

Prints one line per disagreement, naming the library, and exits 1; prints a one-line summary and exits 0 when all
agree. It reads files only (and runs dpkg/readelf for the binary), so it costs well under a second.
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

# Shared libraries the toolchain or the base image brings, not a package of ours.
BASE = re.compile(r"^(libswift|libFoundation|libdispatch|libBlocksRuntime|libc\.|libm\.|libdl\.|libpthread\.|librt\."
                  r"|libstdc\+\+|libgcc_s|ld-linux|libutil\.)")


def table(root):
    rows = []
    for line in (root / "scripts/system-libraries.txt").read_text().splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 4:
            raise SystemExit(f"scripts/system-libraries.txt: '{line}' needs four fields: module pkg-config build run")
        module, pkgconfig, build, run = fields
        rows.append({"module": module, "pkgconfig": pkgconfig, "build": build, "run": run.split(",")})
    return rows


def calls(text, name):
    """The argument text of each `.name(...)` call, parentheses balanced."""
    out = []
    for m in re.finditer(r"\." + name + r"\(", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        out.append(text[m.end():i - 1])
    return out


def package_swift(root):
    found = {}
    for args in calls((root / "Package.swift").read_text(), "systemLibrary"):
        name = re.search(r'name:\s*"([^"]+)"', args).group(1)
        pkgconfig = re.search(r'pkgConfig:\s*"([^"]+)"', args)
        if pkgconfig is None:  # a header-only shim (epoll): no library to install
            continue
        apt = re.search(r"\.apt\(\[([^\]]*)\]\)", args)
        found[name] = (pkgconfig.group(1), re.findall(r'"([^"]+)"', apt.group(1)) if apt else [])
    return found


def dockerfile_stages(root):
    """The packages `apt-get install` names in each stage of the Dockerfile, first stage first."""
    text = (root / "Dockerfile").read_text().replace("\\\n", " ")
    stages = []
    for line in text.splitlines():
        line = line.strip()
        if re.match(r"(?i)^FROM\s", line):
            stages.append(set())
        elif stages and re.match(r"(?i)^RUN\s", line):
            for command in re.split(r"&&|;|\|\|", line[3:]):
                words = command.split()
                if "apt-get" in words and "install" in words:
                    stages[-1].update(w for w in words[words.index("install") + 1:] if not w.startswith("-"))
    return stages


def install_deps(root):
    out = subprocess.run([str(root / "scripts/install-deps.sh"), "--list", "run"], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def needed_packages(binary):
    """{soname: Debian package} for each shared library the binary needs outside the toolchain and libc."""
    out = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout
    owners = {}
    for soname in re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out):
        if BASE.match(soname):
            continue
        owner = subprocess.run(["dpkg", "-S", f"*/{soname}"], capture_output=True, text=True)
        owners[soname] = owner.stdout.split(":")[0] if owner.returncode == 0 else None
    return owners


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary", nargs="?")
    parser.add_argument("--root", default=Path(__file__).resolve().parent.parent, type=Path)
    a = parser.parse_args()
    root = a.root
    rows = table(root)
    errors = []
    where = "scripts/system-libraries.txt"

    swift = package_swift(root)
    for r in rows:
        if r["module"] not in swift:
            errors.append(f"{r['build']} ({r['module']}): listed in {where} but Package.swift has no systemLibrary "
                          f"'{r['module']}'")
            continue
        pkgconfig, apt = swift.pop(r["module"])
        if pkgconfig != r["pkgconfig"]:
            errors.append(f"{r['build']} ({r['module']}): Package.swift's pkgConfig is '{pkgconfig}', {where} says "
                          f"'{r['pkgconfig']}'")
        if apt != [r["build"]]:
            errors.append(f"{r['build']} ({r['module']}): Package.swift's apt provider is {apt}, {where} says "
                          f"['{r['build']}']")
    for module, (pkgconfig, apt) in swift.items():
        errors.append(f"{' '.join(apt) or pkgconfig} ({module}): a systemLibrary in Package.swift missing from {where}")

    stages = dockerfile_stages(root)
    if len(stages) < 2:
        errors.append("Dockerfile: expected a build stage and a runtime stage")
    else:
        build, run = stages[0], stages[-1]
        for r in rows:
            if r["build"] not in build:
                errors.append(f"{r['build']} ({r['module']}): missing from the Dockerfile's build stage install")
            for p in r["run"]:
                if p not in run:
                    errors.append(f"{p} ({r['module']}): missing from the Dockerfile's runtime stage install")
        known = {r["build"] for r in rows} | {p for r in rows for p in r["run"]}
        for stage, label in ((build, "build"), (run, "runtime")):
            for p in sorted(stage - known):
                if p.startswith("lib"):
                    errors.append(f"{p}: installed by the Dockerfile's {label} stage but not in {where}")

    listed = install_deps(root)
    for r in rows:
        if r["build"] not in listed:
            errors.append(f"{r['build']} ({r['module']}): `scripts/install-deps.sh run` does not install it")

    if a.binary:
        runtime = {p: r["module"] for r in rows for p in r["run"]}
        used = set()
        for soname, owner in needed_packages(a.binary).items():
            if owner is None:
                errors.append(f"{soname}: the binary needs it and no installed Debian package provides it")
            elif owner not in runtime:
                errors.append(f"{owner} ({soname}): the binary needs it but no runtime package in {where} is it")
            used.add(owner)
        for p in sorted(set(runtime) - used):
            errors.append(f"{p} ({runtime[p]}): a runtime package in {where} that provides none of the binary's libraries")

    for e in errors:
        print(f"system libraries: {e}", file=sys.stderr)
    if errors:
        return 1
    checked = "Package.swift, the Dockerfile's two stages, install-deps.sh" + (" and the binary" if a.binary else "")
    print(f"system libraries: {len(rows)} agree across {checked}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
