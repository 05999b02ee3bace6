#!/usr/bin/env python3
"""Checks the compile side of tools/mooncake_mutants.py on an invented source
(not Mooncake's): a mutant's compile command keeps the compiler first and maps
the copy's directory to the original's, so an unchanged copy compiles to the
original's bytes (trivial compiler equivalence) and a real change does not.
Run by ctest (mooncake_mutants_tool)."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mooncake_mutants import mutant_argv, same_object  # noqa: E402

SOURCE = '#include <cstdio>\nint f(int a) { if (a > 0) std::printf("%s\\n", __FILE__); return a; }\n'


def compile_copy(argv, src, work, tag, text):
    d = os.path.join(work, tag)
    os.makedirs(d)
    copy, obj = os.path.join(d, "master_service.cpp"), os.path.join(d, "master_service.cpp.o")
    with open(copy, "w", encoding="utf-8") as f:
        f.write(text)
    cmd = mutant_argv(argv, src, copy, obj, keep_g=False)
    assert cmd[0] == argv[0], f"the compiler must stay first: {cmd[:2]}"
    subprocess.run(cmd, check=True)
    return obj


def main():
    with tempfile.TemporaryDirectory() as work:
        src = os.path.join(work, "orig", "master_service.cpp")
        os.makedirs(os.path.dirname(src))
        with open(src, "w", encoding="utf-8") as f:
            f.write(SOURCE)
        argv = ["g++", "-O0", "-g", "-MD", "-MT", "x", "-MF", "x.d", "-o", "orig.o", "-c", src]
        base = compile_copy(argv, src, work, "baseline", SOURCE)
        same = compile_copy(argv, src, work, "M01", SOURCE.replace("a > 0", "a > 0 "))
        other = compile_copy(argv, src, work, "M02", SOURCE.replace("a > 0", "a >= 0"))
        assert same_object(base, same), "an unchanged copy in another directory must compile to the same bytes"
        assert not same_object(base, other), "a changed comparison must change the object"
        assert not same_object(base, os.path.join(work, "absent.o")), "a missing object is never equivalent"
    print("mooncake_mutants: mutant compile commands and object equivalence as documented")


if __name__ == "__main__":
    main()
