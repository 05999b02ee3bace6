#!/usr/bin/env python3
"""include_arrows: the folders include one another only as docs/architecture.md draws it.

Why: the model must stay the spec (it knows no simulator), the simulator must
not know a target by name, and no folder may reach back up the drawing; a
stray #include is how that erodes. The arrows are read from the block
between the `include-arrows` markers in docs/architecture.md, one line a
folder: `folder -> what it may include` (its own files always). The test
fails, printing file:line, when
  - a #include "..." of a tracked C++ file names a file of a folder its
    folder has no arrow to;
  - the arrows themselves form a cycle, or name a folder that does not exist.
Test code (a tests/ folder, sim/testing/) may include any folder; nothing but
test code may include it. An include the repository does not hold (a system
or third-party header) is not checked.
Usage: include_arrows.py <repository root>
"""
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ARROW = re.compile(r"^\s*(\S+)\s*->\s*(.*)$")


def read_arrows(doc):
    """{folder: set of folders it may include}, from the marked block of the doc."""
    text = open(doc, encoding="utf-8").read()
    m = re.search(r"<!-- include-arrows -->\s*```text\n(.*?)```", text, re.S)
    if not m:
        sys.exit(f"include_arrows: {doc}: no ```text block after <!-- include-arrows -->")
    arrows = {}
    for line in m.group(1).splitlines():
        a = ARROW.match(line)
        if a:
            arrows[a.group(1).rstrip("/")] = {d.rstrip("/") for d in a.group(2).split()}
    return arrows


def cycle(arrows):
    """A folder on a cycle of the arrows, or None."""
    state = {}

    def visit(f):
        if state.get(f) == 1:
            return f
        if state.get(f) == 2:
            return None
        state[f] = 1
        for d in arrows.get(f, ()):
            found = visit(d)
            if found:
                return found
        state[f] = 2
        return None

    for f in arrows:
        found = visit(f)
        if found:
            return found
    return None


def is_test(path):
    return "/tests/" in "/" + path or path.startswith("sim/testing/")


def folder_of(path, arrows):
    """The longest folder of the arrows that holds `path`, or None."""
    best = None
    for f in arrows:
        if path.startswith(f + "/") and (best is None or len(f) > len(best)):
            best = f
    return best


def resolve(name, includer, files):
    """The tracked file an #include "name" of `includer` reads: beside it, else
    the one file anywhere with that path ending (the build's include folders)."""
    beside = os.path.normpath(os.path.join(os.path.dirname(includer), name))
    if beside in files:
        return beside
    ends = [f for f in files if f == name or f.endswith("/" + name)]
    return ends[0] if len(ends) == 1 else None


def main(repo):
    arrows = read_arrows(os.path.join(repo, "docs/architecture.md"))
    status = 0
    for f, deps in arrows.items():
        for d in deps | {f}:
            if not os.path.isdir(os.path.join(repo, d)):
                print(f"docs/architecture.md: the arrows name '{d}', which is not a folder")
                status = 1
    if (c := cycle(arrows)) is not None:
        print(f"docs/architecture.md: the arrows have a cycle through '{c}'")
        status = 1
    listed = subprocess.check_output(["git", "-C", repo, "ls-files", "--cached", "--others", "--exclude-standard"],
                                     text=True).split("\n")
    files = {f for f in listed if f.endswith((".h", ".cpp")) and os.path.exists(os.path.join(repo, f))}
    for f in sorted(files):
        here = folder_of(f, arrows)
        for n, line in enumerate(open(os.path.join(repo, f), encoding="utf-8", errors="replace"), 1):
            m = INCLUDE.match(line)
            target = m and resolve(m.group(1), f, files)
            if not target:
                continue
            there = folder_of(target, arrows)
            if is_test(target) and not is_test(f):
                print(f"{f}:{n}: includes test code {target}")
                status = 1
            elif not is_test(f) and here and there and there != here and there not in arrows[here]:
                print(f"{f}:{n}: {here}/ includes {target}, but the drawing has no arrow {here}/ -> {there}/")
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")))
