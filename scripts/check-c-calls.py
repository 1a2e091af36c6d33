#!/usr/bin/env python3
"""Checks that no two files of Sources/CImageIO call each other, directly or round a longer loop, and that
include/CImageIO.h declares only functions the Swift sources call: the C layer's shape, read from what the compiler
made (`nm` on each file's object: the functions it defines and the ones it calls in other files), not from the text.

    scripts/check-c-calls.py [BUILD_DIR]     (default .build/debug; run after `swift build`)

Prints the file-level call graph and exits 1 naming any cycle or any public function the Swift side never calls.
"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
objects = sorted((ROOT / (sys.argv[1] if len(sys.argv) > 1 else ".build/debug") / "CImageIO.build").glob("*.c.o"))
if not objects:
    sys.exit("no CImageIO objects: run `swift build` first")


def symbols(obj, *flags):
    out = subprocess.run(["nm", *flags, str(obj)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


defined = {}
for obj in objects:
    for name in symbols(obj, "--defined-only", "--extern-only"):
        defined[name] = obj.name.removesuffix(".o")
calls = {obj.name.removesuffix(".o"): {defined[n] for n in symbols(obj, "--undefined-only") if n in defined}
         for obj in objects}
for source in sorted(calls):
    if calls[source]:
        print(f"{source} -> {', '.join(sorted(calls[source]))}")

problems = []
# A cycle: a file that reaches itself.
for start in sorted(calls):
    seen, stack = set(), [(start, [start])]
    while stack:
        node, path = stack.pop()
        for nxt in calls[node]:
            if nxt == start:
                problems.append("call cycle: " + " -> ".join(path + [start]))
            elif nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, path + [nxt]))
problems = sorted(set(problems))

header = (ROOT / "Sources/CImageIO/include/CImageIO.h").read_text()
declared = set(re.findall(r"\b(tsio_\w+)\s*\(", re.sub(r"/\*.*?\*/", "", header, flags=re.S)))
swift = "\n".join(p.read_text() for p in (ROOT / "Sources").rglob("*.swift"))
for name in sorted(declared):
    if not re.search(r"\b" + name + r"\b", swift):
        problems.append(f"{name}: declared in include/CImageIO.h but no Swift source calls it")

for p in problems:
    print(f"CImageIO: {p}", file=sys.stderr)
if problems:
    sys.exit(1)
print(f"CImageIO: {len(objects)} files, no call cycle; the public header's {len(declared)} functions are all called from Swift")
