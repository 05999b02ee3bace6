"""Reading C++ source as code: the one comment and literal blanker that the
dev scripts share (tidy_shape.py, mooncake_coverage.py, mooncake_mutants.py),
so that braces and names they find are only code, and the input checks of
the two Mooncake scripts (one line and exit code 2 for a tree or list they
cannot read)."""
import os
import re
import sys

FILE = "mooncake-store/src/master_service.cpp"


def blank(text):
    """The text with comments and string and character literals turned into
    spaces (newlines kept), so that every offset still means the same place."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c == '"' and i > 0 and text[i - 1] == "R":  # raw string R"d(...)d"
            d = text[i + 1:text.find("(", i)]
            j = text.find(")" + d + '"', i)
            j = n if j < 0 else j + len(d) + 2
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):  # not 100'000
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            out.append(c)
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        i = j
    return "".join(out)


def definition_bodies(code, pattern):
    """For each match of `pattern` (ending just past a function name's `(`)
    in blanked code that is a definition, not a declaration: (match start,
    offset of the body's first character, offset of its closing brace)."""
    found = []
    for m in pattern.finditer(code):
        i, depth = m.end(), 1  # past the parameter list
        while depth:
            depth += {"(": 1, ")": -1}.get(code[i], 0)
            i += 1
        while code[i] not in "{;":
            i += 1
        if code[i] == ";":
            continue
        start, depth, i = i + 1, 1, i + 1
        while depth:
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        found.append((m.start(), start, i - 1))
    return found


def usage_exit(prog, message):
    """Bad input: one line naming the place and the reason, exit code 2."""
    print(f"{prog}: {message}", file=sys.stderr)
    sys.exit(2)


def lifecycle_names(path, prog):
    """The function names of tools/lifecycle_functions.txt (or another list
    like it): one a line, `#` starts a comment. The coverage report and the
    mutation run read the same list, so they speak of the same functions."""
    try:
        with open(path, encoding="utf-8") as f:
            names = [l.split("#")[0].strip() for l in f if l.split("#")[0].strip()]
    except (OSError, UnicodeDecodeError) as e:
        usage_exit(prog, f"--functions {path}: cannot read it ({getattr(e, 'strerror', None) or e})")
    if not names:
        usage_exit(prog, f"--functions {path}: names no function")
    return names


def require_trees(prog, src, build, build_marker):
    """SRC must hold Mooncake's master_service.cpp and BUILD must be a
    directory holding BUILD_MARKER (None: the directory alone)."""
    if not os.path.isfile(os.path.join(src, FILE)):
        usage_exit(prog, f"{src}: not a Mooncake source tree (no {FILE})")
    if not os.path.isdir(build):
        usage_exit(prog, f"{build}: no such build directory")
    if build_marker and not os.path.isfile(os.path.join(build, build_marker)):
        usage_exit(prog, f"{build}: not a configured build tree (no {build_marker})")
