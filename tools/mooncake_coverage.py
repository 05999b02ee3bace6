#!/usr/bin/env python3
"""Real-code coverage: how much of Mooncake's own master_service.cpp a pinsim
campaign executes, in total and per lifecycle function.

pinsim's rule coverage (`pinsim run --coverage`) says which rules of the model
a campaign exercised; it cannot say which code of the real MasterService ran.
This report reads the gcov counters that a campaign left in a Mooncake build
made with --coverage (`./dev mooncake-coverage` runs both) and answers that
for mooncake-store/src/master_service.cpp and for each function named in
tools/lifecycle_functions.txt. A function's lines are found in the tree's
source at run time (its definition `MasterService::Name(`, or a free function
`Name(`, at the start of a line, and its body by brace matching), so the
report follows whichever tree it is given; a name the tree does not define is
"absent". Lines are counted as gcovr counts them: an unexecuted line that
holds only a brace or `else` is not code, so a total can grow by a line or
two when more of a function runs.

usage: mooncake_coverage.py SRC COVBUILD [--json FILE] [--uncovered] [--functions FILE]
"""
import argparse
import json
import os
import re
import subprocess
import sys

# shared with the other dev scripts
from cpp_source import FILE, blank, definition_bodies, lifecycle_names, require_trees

HERE = os.path.dirname(os.path.abspath(__file__))


def gcovr_lines(src, covbuild):
    """{line number: execution count} of the code lines of FILE, from gcovr."""
    path = os.path.join(src, FILE)
    out = subprocess.run(
        ["gcovr", "-r", src, "--object-directory", covbuild, covbuild,
         "--gcov-executable", "gcov", "--filter", re.escape(path) + "$",
         "--json", "-j", "2"],
        check=True, capture_output=True, text=True).stdout
    for f in json.loads(out)["files"]:
        if os.path.realpath(os.path.join(src, f["file"])) == os.path.realpath(path):
            return {l["line_number"]: l["count"] for l in f["lines"]
                    if not l.get("gcovr/noncode") and not l.get("gcovr/excluded")}
    sys.exit(f"mooncake_coverage: gcovr has no data for {path} "
             f"(no .gcda/.gcno under {covbuild}: build it with --coverage and run a campaign)")


def definitions(code, name):
    """(first line, last line) of each definition of `name` in the blanked
    code: `MasterService::name(` at the start of a line (return type allowed
    before it), else a free function `name(`; declarations are skipped."""
    found = []
    for qualifier in (r"MasterService::", r""):
        pattern = re.compile(r"^(?=\S)[^;{}\n]*?(?<![\w:~])" + qualifier
                             + re.escape(name) + r"\(", re.M)
        for match_start, _, end in definition_bodies(code, pattern):
            found.append((code.count("\n", 0, match_start) + 1, code.count("\n", 0, end + 1) + 1))
        if found:
            return found
    return found


def stat(covered, total):
    return {"covered": covered, "total": total,
            "percent": round(100.0 * covered / total, 1) if total else None}


def report(src, covbuild, names):
    counts = gcovr_lines(src, covbuild)
    with open(os.path.join(src, FILE), encoding="utf-8", errors="replace") as f:
        code = blank(f.read())
    result = {"file": FILE,
              "lines": stat(sum(1 for c in counts.values() if c), len(counts)),
              "functions": {}}
    lifecycle_lines = {}
    for name in names:
        ranges = definitions(code, name)
        if not ranges:
            result["functions"][name] = {"absent": True}
            continue
        lines = sorted(l for a, b in ranges for l in range(a, b + 1) if l in counts)
        uncovered, run = [], None  # maximal runs of code lines never executed
        for l in lines:
            if counts[l]:
                run = None
            elif run:
                run[1] = l
            else:
                run = [l, l]
                uncovered.append(run)
        covered = sum(1 for l in lines if counts[l])
        result["functions"][name] = dict(
            stat(covered, len(lines)), absent=False, entered=covered > 0,
            definitions=[list(r) for r in ranges], uncovered=uncovered,
            counts={str(l): counts[l] for l in lines})
        lifecycle_lines.update((l, counts[l]) for l in lines)
    result["lifecycle"] = stat(sum(1 for c in lifecycle_lines.values() if c),
                               len(lifecycle_lines))
    result["never_entered"] = [n for n, f in result["functions"].items()
                               if not f["absent"] and not f["entered"]]
    result["absent"] = [n for n, f in result["functions"].items() if f["absent"]]
    return result


def pct(s):
    return "   -  " if s["percent"] is None else f"{s['percent']:5.1f}%"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", help="the Mooncake source tree")
    ap.add_argument("covbuild", help="its build tree, made with --coverage, after a campaign")
    ap.add_argument("--functions", default=os.path.join(HERE, "lifecycle_functions.txt"),
                    help="the names to report (default: lifecycle_functions.txt beside this script)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    ap.add_argument("--uncovered", action="store_true",
                    help="list the uncovered line ranges of each lifecycle function")
    a = ap.parse_args()
    require_trees("mooncake_coverage", a.src, a.covbuild, "CMakeCache.txt")
    names = lifecycle_names(a.functions, "mooncake_coverage")
    r = report(os.path.abspath(a.src), os.path.abspath(a.covbuild), names)

    s = r["lines"]
    print(f"{FILE}: {s['covered']}/{s['total']} lines, {pct(s).strip()}")
    print(f"\n{'lifecycle function':<42}{'lines':>12}{'%':>8}")
    for name, fn in r["functions"].items():
        print(f"{name:<42}{'absent':>12}" if fn["absent"] else
              f"{name:<42}{fn['covered']:>6}/{fn['total']:<5}{pct(fn):>8}")
    s = r["lifecycle"]
    present = len(names) - len(r["absent"])
    print(f"{'total (' + str(present) + ' present, lines counted once)':<42}"
          f"{s['covered']:>6}/{s['total']:<5}{pct(s):>8}")
    print(f"never entered ({len(r['never_entered'])}): {', '.join(r['never_entered']) or '-'}")
    print(f"absent from this tree ({len(r['absent'])}): {', '.join(r['absent']) or '-'}")
    if a.uncovered:
        print("\nuncovered line ranges (source lines of " + FILE + "):")
        for name, fn in r["functions"].items():
            if not fn["absent"] and fn["uncovered"]:
                spans = ", ".join(f"{x}" if x == y else f"{x}-{y}" for x, y in fn["uncovered"])
                print(f"  {name} (defined {', '.join(f'{x}-{y}' for x, y in fn['definitions'])}): {spans}")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(r, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
