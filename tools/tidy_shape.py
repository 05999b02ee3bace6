#!/usr/bin/env python3
"""tidy_shape: the shape rules of the code, as a ratchet.

Why: functions that fit on a screen and lines that fit in a review pane keep
the harness readable. Today's exceptions are listed in tools/tidy_ratchet.txt;
the list may only shrink. The test fails when
  - a function (a body whose enclosing scopes are only namespaces and
    classes) in model/, sim/, properties/ or tools/ exceeds 80 lines and is
    not listed, or a listed one grew past its recorded length;
  - a listed function no longer exceeds 80 lines (take it off the list);
  - a file has more lines over 120 columns than its recorded count
    (files not listed may have none);
  - a tracked file or folder at the repository root is not one of the
    expected ones.
Usage: tidy_shape.py <repository root> [--write] (--write prints a fresh list).
"""
import os
import re
import subprocess
import sys

from cpp_source import blank  # the shared comment and literal blanker

MAX_FUNCTION, MAX_COLUMNS = 80, 120
ROOT_ENTRIES = {".ci", ".gitignore", "CMakeLists.txt", "README.md", "dev", "cmake", "docs", "model", "properties",
                "scenarios", "sim", "tools"}
CONTAINER = re.compile(r"\b(namespace|class|struct|union|enum)\b")


def functions(text):
    """(name, first line, line count) of every top-level function body."""
    code = blank(text)
    stack, head_start, found = [], 0, []
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            head = code[head_start:i]
            if all(kind == "container" for kind, _, _ in stack) and "(" in head and not CONTAINER.search(head.split("(")[0]):
                name = re.findall(r"([~\w:]+)\s*\(", head)
                stack.append(("function", line, name[0] if name else "?"))
            elif CONTAINER.search(head) and "(" not in head:
                stack.append(("container", line, ""))
            else:
                stack.append(("block", line, ""))
            head_start = i + 1
        elif c == "}":
            if stack:
                kind, start, name = stack.pop()
                if kind == "function":
                    found.append((name, start, line - start + 1))
            head_start = i + 1
        elif c == ";":
            head_start = i + 1
    return found


def tracked_files(repo):
    """The files git tracks; outside a git checkout (a source archive, which
    ./dev sanitize or flake may run from) every file under the expected root
    entries, so the shape rules still hold there."""
    listed = subprocess.run(["git", "-C", repo, "ls-files"], capture_output=True, text=True)
    files = listed.stdout.split() if listed.returncode == 0 else []
    if files:
        return files
    for entry in sorted(ROOT_ENTRIES):
        path = os.path.join(repo, entry)
        if os.path.isfile(path):
            files.append(entry)
        for root, _, names in os.walk(path):
            files += [os.path.relpath(os.path.join(root, n), repo) for n in names]
    return files


def measure(repo):
    files = tracked_files(repo)
    long_functions, wide = {}, {}
    for f in files:
        if not f.endswith((".cpp", ".h")) or f.split("/")[0] not in ("model", "sim", "properties", "tools"):
            continue
        try:
            text = open(f"{repo}/{f}", encoding="utf-8").read()
        except FileNotFoundError:
            continue
        for name, start, length in functions(text):
            if length > MAX_FUNCTION:
                long_functions[f"{f}:{name}"] = max(length, long_functions.get(f"{f}:{name}", 0))
        count = sum(1 for l in text.splitlines() if len(l) > MAX_COLUMNS)
        if count:
            wide[f] = count
    roots = {f.split("/")[0] for f in files}
    return long_functions, wide, roots


def read_ratchet(path):
    functions_, wide = {}, {}
    for raw in open(path, encoding="utf-8"):
        line = raw.split("#")[0].strip()
        if not line:
            continue
        kind, key, number = line.split()
        (functions_ if kind == "function" else wide)[key] = int(number)
    return functions_, wide


def main():
    repo = sys.argv[1]
    long_functions, wide, roots = measure(repo)
    if "--write" in sys.argv:
        for k, v in sorted(long_functions.items()):
            print(f"function {k} {v}")
        for k, v in sorted(wide.items()):
            print(f"wide {k} {v}")
        return 0
    allowed_functions, allowed_wide = read_ratchet(f"{repo}/tools/tidy_ratchet.txt")
    errors = []
    for k, v in sorted(long_functions.items()):
        if v > allowed_functions.get(k, MAX_FUNCTION):
            errors.append(f"{k}: {v} lines (at most {allowed_functions.get(k, MAX_FUNCTION)}); split it")
    for k in sorted(set(allowed_functions) - set(long_functions)):
        errors.append(f"{k}: now within {MAX_FUNCTION} lines or gone; take it off tools/tidy_ratchet.txt")
    for k, v in sorted(wide.items()):
        if v > allowed_wide.get(k, 0):
            errors.append(f"{k}: {v} lines over {MAX_COLUMNS} columns (at most {allowed_wide.get(k, 0)})")
    for r in sorted(roots - ROOT_ENTRIES):
        errors.append(f"{r}: a stray file at the repository root")
    for e in errors:
        print(f"tidy_shape: {e}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
