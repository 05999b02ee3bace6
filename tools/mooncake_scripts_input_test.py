#!/usr/bin/env python3
"""Bad input to the two Mooncake dev scripts (mooncake_coverage.py,
mooncake_mutants.py) gets one line naming the place and the reason, and exit
code 2: a source tree without master_service.cpp, a missing or unconfigured
build tree, an unreadable or empty --functions list, a compile_commands.json
that is not JSON or lacks the file. Needs no Mooncake tree.
Run by ctest (mooncake_scripts_input)."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def check(script, args, expect):
    r = subprocess.run([sys.executable, os.path.join(HERE, script)] + args, capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2, f"{script} {args}: exit {r.returncode}, stderr {r.stderr!r}"
    assert len(lines) == 1 and expect in lines[0], f"{script} {args}: {r.stderr!r}, wanted one line with {expect!r}"


def main():
    with tempfile.TemporaryDirectory() as work:
        src, build, empty = (os.path.join(work, d) for d in ("src", "build", "empty.txt"))
        os.makedirs(os.path.join(src, "mooncake-store", "src"))
        open(os.path.join(src, "mooncake-store", "src", "master_service.cpp"), "w").close()
        os.makedirs(build)
        open(empty, "w").close()
        markers = (("mooncake_coverage.py", "CMakeCache.txt"), ("mooncake_mutants.py", "compile_commands.json"))
        for script, marker in markers:
            check(script, [work, build], "not a Mooncake source tree")
            check(script, [src, os.path.join(work, "none")], "no such build directory")
            check(script, [src, build], f"no {marker}")
            open(os.path.join(build, marker), "w").close()
            check(script, [src, build, "--functions", os.path.join(work, "none.txt")], "cannot read it")
            check(script, [src, build, "--functions", empty], "names no function")
        check("mooncake_mutants.py", [src, build, "--list"], "cannot read it as JSON")
        with open(os.path.join(build, "compile_commands.json"), "w") as f:
            f.write("[]")
        check("mooncake_mutants.py", [src, build, "--list"], "no compile command for")
    print("ok")


if __name__ == "__main__":
    main()
