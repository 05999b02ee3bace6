#!/usr/bin/env python3
"""Mutation testing of Mooncake's real MasterService, to calibrate `pinsim gate`.

Each mutant is one small edit of the user's mooncake-store/src/master_service.cpp
inside a lifecycle function (tools/lifecycle_functions.txt). The mutated file
is compiled with the exact command of compile_commands.json into a shadow of
the user's build tree (hard links, with its own copy of the master library),
pinsim is relinked against it, and `pinsim gate --stop-on-new` judges it:
exit 1 (a new failure) kills the mutant, exit 0 lets it survive. Sites are
found at run time in the tree given, so the repository holds the operators and
the function list only, never Mooncake's text. Design: docs/mutation.md.

usage: mooncake_mutants.py SRC BUILD [--count 40] [--seed 1] [--budget 120s]
                           [--rerun-survivors 600s] [--report FILE] [--json FILE]
                           [--list] [--work /work/mut] [--pinsim-build DIR]
"""
import argparse
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time

# shared with the other dev scripts
from cpp_source import FILE, blank, definition_bodies, lifecycle_names, require_trees, usage_exit
from mutation_curve import curve, markdown as curve_markdown

LIB = "mooncake-store/src/libmooncake_store_master.a"
MEMBER = "master_service.cpp.o"
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
OPERATORS = ["cmp", "drop-deadline", "skip-index", "drop-call", "const"]

# Functions of the list that the Mooncake target cannot drive today, where a
# mutant survives by construction (docs/mutation.md says why for each): NoF
# (no NoF segment is mounted), local disk and DFS replicas (none in the
# harness), HA snapshot catalogues and standby restore (the target restores
# through the codec and ApplySnapshotState), the eviction thread (stopped),
# KV events (no publisher) and IsTenantQuotaEnabled (read by the RPC wrapper
# only). The run-time quota-policy calls are in: set_quota and delete_quota
# drive them. --exclude '' keeps them all.
DEFAULT_EXCLUDE = (r"NoF|Disk|Dfs|Catalog|Standby|^RestoreState$|^EvictionThreadFunc$|^PublishKvRemovedAfterEvict$"
                   r"|^IsTenantQuotaEnabled$")
KEYWORDS = {"return", "co_return", "co_await", "co_yield", "break", "continue", "goto", "throw", "delete",
            "new", "using", "typedef", "if", "else", "while", "for", "do", "switch", "case", "default",
            "const", "static", "constexpr", "auto", "sizeof", "static_cast", "dynamic_cast",
            "reinterpret_cast", "const_cast", "static_assert", "try", "catch", "true", "false", "this",
            "nullptr", "operator", "template", "typename", "struct", "class", "enum", "namespace"}
MACRO_PREFIX = re.compile(r"^(LOG|VLOG|DLOG|PLOG|LOG_|CHECK|DCHECK|assert|static_assert)\b|^(LOG|VLOG|DLOG)_?\w*\(")
LEASE_WORDS = {"lease", "leases", "deadline", "deadlines"}
INDEX_RE = re.compile(r"\b\w*(deadline|expir|lease)\w*_index\w*\b", re.I)
LOCK_RE = re.compile(r"\b(lock|unlock|try_lock|mutex|reserve|shrink_to_fit)\b|_lock\b|Lock\(")


# --- Reading the source ---------------------------------------------------------

def inactive_lines(code, defines):
    """Line numbers (1-based) that the preprocessor drops or that are
    directives, evaluating #ifdef/#ifndef/#if [!]defined(X) with the -D set;
    any other #if counts as unknown and its lines are skipped too."""
    skip, stack = set(), []  # stack of (this branch active?, some branch taken?)
    for no, line in enumerate(code.split("\n"), 1):
        s = line.strip()
        m = re.match(r"#\s*(ifdef|ifndef|if|elif|else|endif)\b\s*(.*)", s)
        if m:
            kind, arg = m.group(1), m.group(2).strip()
            skip.add(no)
            outer = all(a for a, _ in stack)

            def value():
                if kind == "ifdef":
                    return arg.split()[0] in defines
                if kind == "ifndef":
                    return arg.split()[0] not in defines
                d = re.fullmatch(r"(!?)\s*defined\s*\(?\s*(\w+)\s*\)?", arg)
                if d:
                    return (d.group(2) in defines) != (d.group(1) == "!")
                if arg in ("0", "1"):
                    return arg == "1"
                return None  # unknown: treat as inactive
            if kind in ("ifdef", "ifndef", "if"):
                v = value()
                stack.append((bool(v) and outer, bool(v)))
            elif kind == "elif" and stack:
                _, taken = stack.pop()
                v = value()
                outer = all(a for a, _ in stack)
                stack.append((bool(v) and not taken and outer, taken or bool(v)))
            elif kind == "else" and stack:
                _, taken = stack.pop()
                outer = all(a for a, _ in stack)
                stack.append((not taken and outer, True))
            elif kind == "endif" and stack:
                stack.pop()
            continue
        if s.startswith("#") or not all(a for a, _ in stack):
            skip.add(no)
    return skip


def definitions(code, name):
    """(body start offset, body end offset) of each definition
    `MasterService::name(` that starts a line (a return type may precede it)."""
    pattern = re.compile(r"^(?=\S)[^;{}\n]*?(?<![\w:~])MasterService::" + re.escape(name) + r"\(", re.M)
    return [(start, end) for _, start, end in definition_bodies(code, pattern)]


def match_paren(code, i, open_="(", close=")"):
    """Offset just past the bracket that closes the one at i."""
    depth = 0
    while i < len(code):
        if code[i] == open_:
            depth += 1
        elif code[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(code)


# --- Statements ----------------------------------------------------------------------

def statements(code, start, end):
    """(offset, end offset incl. ';') of each statement in code[start:end]
    that ends with ';' at paren depth 0; control headers (if/while/for/switch
    (...), else, case labels) in front of a statement are skipped over."""
    out, i, depth, begin = [], start, 0, start
    while i < end:
        c = code[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0 and c in "{}":
            begin = i + 1
        elif depth == 0 and c == ";":
            s = begin
            while True:
                while s < i and code[s].isspace():
                    s += 1
                m = re.match(r"(if|while|for|switch)\s*\(", code[s:i])
                if m:
                    s = match_paren(code, s + m.end() - 1)
                    continue
                m = re.match(r"else\b|(case\b[^;:]*|default\s*):(?!:)", code[s:i])
                if m:
                    s += m.end()
                    continue
                break
            if s < i:
                out.append((s, i + 1))
            begin = i + 1
        i += 1
    return out


def words(code):
    """The lower-case words of the identifiers in code: snake_case and
    CamelCase parts (ReleaseTenantQuota -> release, tenant, quota)."""
    out = []
    for ident in re.findall(r"[A-Za-z_]\w*", code):
        out += [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", ident)]
    return out


def touches_lease(code):
    """Whether code names a lease, a deadline or the soft pin."""
    w = words(code)
    return bool(LEASE_WORDS & set(w)) or any(a == "soft" and b == "pin" for a, b in zip(w, w[1:]))


def expression_statement(stmt):
    """'call', 'assign' or None: whether `stmt` (without its ';') is an
    expression statement headed by an identifier chain (a.b->c::d(...)[...])
    that is a call or an assignment, not a declaration, return or macro."""
    s = stmt.strip()
    if "<<" in s or MACRO_PREFIX.match(s):
        return None
    i = 0
    if s.startswith(("++", "--")):
        i = 2
    m = re.match(r"[A-Za-z_]\w*", s[i:])
    if not m or m.group(0) in KEYWORDS and m.group(0) != "this":
        return None
    i += m.end()
    last_call = False
    while i < len(s):
        m = re.match(r"\s*(::|\.|->)\s*([A-Za-z_]\w*)", s[i:])
        if m:
            i += m.end()
            last_call = False
            continue
        if s[i] == "(":
            i = match_paren(s, i)
            last_call = True
            continue
        if s[i] == "[":
            i = match_paren(s, i, "[", "]")
            last_call = False
            continue
        break
    rest = s[i:].strip()
    if rest == "":
        return "call" if last_call else None
    if re.match(r"(=(?!=)|[-+*/%|&^]=|<<=|>>=|\+\+|--)", rest):
        return "assign"
    return None


# --- Sites -------------------------------------------------------------------------

def find_sites(text, names, defines):
    """Every mutation site of the named functions: dicts with function,
    operator, line, the offsets replaced and the replacement."""
    code = blank(text)
    line_of = lambda off: code.count("\n", 0, off) + 1
    skip = inactive_lines(code, defines)
    sites, absent = [], []
    for name in names:
        bodies = definitions(code, name)
        if not bodies:
            absent.append(name)
        for b0, b1 in bodies:
            sites += body_sites(code, name, b0, b1, line_of, skip)
    # One site per (offsets, replacement); sorted by place for a stable order.
    seen, unique = set(), []
    for s in sorted(sites, key=lambda s: (s["start"], s["end"], s["operator"], s["replacement"])):
        key = (s["start"], s["end"], s["replacement"])
        if key not in seen:
            seen.add(key)
            unique.append(s)
    return unique, absent


def body_sites(code, name, b0, b1, line_of, skip):
    sites = []

    def add(op, start, end, repl):
        if line_of(start) in skip or line_of(end - 1) in skip:
            return
        sites.append({"function": name, "operator": op, "start": start, "end": end,
                      "replacement": repl, "line": line_of(start)})

    # Condition regions: the parentheses of if/while, return statements, and
    # lines with &&, || or ?.
    regions = []
    for m in re.finditer(r"\b(if|while)\s*\(", code[b0:b1]):
        p = b0 + m.end() - 1
        regions.append((p, match_paren(code, p)))
    for m in re.finditer(r"\b(co_)?return\b", code[b0:b1]):
        p = b0 + m.start()
        e = code.find(";", p)
        regions.append((p, e if e >= 0 else b1))
    cond_lines = set()
    for m in re.finditer(r"&&|\|\||\?", code[b0:b1]):
        cond_lines.add(line_of(b0 + m.start()))
    in_condition = lambda p: line_of(p) in cond_lines or any(a <= p < z for a, z in regions)

    lines_with_shift = set()
    for m in re.finditer(r"<<|>>|\btemplate\b", code[b0:b1]):
        lines_with_shift.add(line_of(b0 + m.start()))

    # cmp: a comparison with whitespace on both sides, in a condition.
    flips = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
    for m in re.finditer(r"(?<=\s)(<=|>=|==|!=|<|>)(?=\s)", code[b0:b1]):
        p = b0 + m.start()
        if line_of(p) in lines_with_shift or not in_condition(p):
            continue
        add("cmp", p, p + len(m.group(1)), flips[m.group(1)])

    # const: an integer literal in a condition or beside + - * / %, +1;
    # true <-> false anywhere.
    for m in re.finditer(r"(?<![\w.'])(\d+)([uUlL]*)(?![\w.'])", code[b0:b1]):
        p = b0 + m.start()
        before = code[b0:p].rstrip()[-1:]
        after = code[p + len(m.group(0)):b1].lstrip()[:1]
        if before == "<" and code[p - 1] == "<" or after == ">" and code[p + len(m.group(0))] == ">":
            continue  # a template argument such as get<0>
        if line_of(p) in lines_with_shift:
            continue
        arith = before in ("+", "-", "*", "/", "%") or after in ("+", "-", "*", "/", "%")
        if not (arith or in_condition(p)):
            continue
        add("const", p, p + len(m.group(1)), str(int(m.group(1)) + 1))
    for m in re.finditer(r"\b(true|false)\b", code[b0:b1]):
        p = b0 + m.start()
        add("const", p, p + len(m.group(1)), "false" if m.group(1) == "true" else "true")

    # Dropped statements: index, deadline/lease, one-line calls.
    for s, e in statements(code, b0, b1):
        stmt = code[s:e - 1]
        kind = expression_statement(stmt)
        if not kind:
            continue
        one_line = "\n" not in stmt.strip()
        if INDEX_RE.search(stmt):
            op = "skip-index"
        elif touches_lease(stmt):
            op = "drop-deadline"
        elif kind == "call" and one_line and not LOCK_RE.search(stmt):
            op = "drop-call"
        else:
            continue
        add(op, s, e, ";" + "\n" * stmt.count("\n"))
    return sites


def describe(text, site):
    """The original and mutated lines of a site (one string each, stripped)."""
    a = text.rfind("\n", 0, site["start"]) + 1
    z = text.find("\n", site["end"])
    z = len(text) if z < 0 else z
    original = text[a:z]
    mutated = text[a:site["start"]] + site["replacement"] + text[site["end"]:z]
    squash = lambda t: " ".join(t.split())
    return squash(original), squash(mutated) or ";"


def mutate(text, site):
    return text[:site["start"]] + site["replacement"] + text[site["end"]:]


# --- Selection ---------------------------------------------------------------------------

def select(sites, count, seed):
    """A stratified sample: operators take turns (in OPERATORS order); within
    an operator, functions take turns in a seeded order; within an (operator,
    function) stratum a seeded random site is drawn. Same sites, same seed:
    same sample."""
    rng = random.Random(seed)
    strata = {}
    for s in sites:
        strata.setdefault(s["operator"], {}).setdefault(s["function"], []).append(s)
    queues = {}
    for op, by_fn in strata.items():
        fns = sorted(by_fn)
        rng.shuffle(fns)
        for fn in fns:
            rng.shuffle(by_fn[fn])
        queues[op] = [fns, 0]
    picked = []
    while len(picked) < count and any(strata[op][fn] for op in strata for fn in strata[op]):
        for op in OPERATORS:
            if op not in strata or len(picked) >= count:
                continue
            fns, turn = queues[op]
            for k in range(len(fns)):
                fn = fns[(turn + k) % len(fns)]
                if strata[op][fn]:
                    picked.append(strata[op][fn].pop())
                    queues[op][1] = (turn + k + 1) % len(fns)
                    break
    picked.sort(key=lambda s: (s["line"], s["start"], s["operator"]))
    for i, s in enumerate(picked, 1):
        s["id"] = f"M{i:02d}"
    return picked


# --- Building ------------------------------------------------------------------------------

def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def compile_command(build, src_file):
    """(directory, argv) of the compile command of FILE in BUILD."""
    path = os.path.join(build, "compile_commands.json")
    try:
        with open(path, encoding="utf-8") as f:
            entries = json.load(f)
    except (OSError, ValueError) as e:
        usage_error(f"{path}: cannot read it as JSON ({e})")
    for e in entries if isinstance(entries, list) else []:
        path = os.path.realpath(os.path.join(e["directory"], e["file"]))
        if path == os.path.realpath(src_file):
            argv = e["arguments"] if "arguments" in e else shlex.split(e["command"])
            return e["directory"], argv
    usage_error(f"{path}: no compile command for {src_file}")


def defines_of(argv):
    out, i = set(), 0
    while i < len(argv):
        a = argv[i]
        if a == "-D" and i + 1 < len(argv):
            out.add(argv[i + 1].split("=")[0])
            i += 1
        elif a.startswith("-D"):
            out.add(a[2:].split("=")[0])
        i += 1
    return out


def mutant_argv(argv, src_file, new_src, obj, keep_g):
    """The compile command with the source and output replaced, dependency
    file options dropped, -g dropped unless keep_g; quoted includes still
    find the original directory's headers first. The copy's directory is
    mapped to the original's (__FILE__ in log lines, debug paths), so that
    two copies of one text compile to the same bytes (same_object)."""
    out, i = [argv[0], "-ffile-prefix-map=" + os.path.dirname(new_src) + "=" + os.path.dirname(src_file)], 1
    while i < len(argv):
        a = argv[i]
        if a == "-o":
            out += ["-o", obj]
            i += 2
            continue
        if a in ("-MF", "-MT", "-MQ"):
            i += 2
            continue
        if a in ("-MD", "-MMD") or (a == "-g" and not keep_g):
            i += 1
            continue
        if a == "-c" and i + 1 < len(argv):
            out += ["-iquote", os.path.dirname(src_file), "-c", new_src]
            i += 2
            continue
        out.append(a)
        i += 1
    if new_src not in out:
        sys.exit("mooncake_mutants: the compile command has no '-c <source>'")
    return out


def same_object(a, b):
    """Trivial compiler equivalence: a mutant whose object is byte for byte
    the unmutated source's (a site the compiler folds away, or code built
    out by the build's options) cannot behave otherwise in this build."""
    if not a or not b or not os.path.exists(a) or not os.path.exists(b):
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def archive_members(lib):
    return run(["ar", "t", lib]).stdout.split()


class Shadow:
    """WORK/build: the user's build tree as hard links, with a real copy of the
    master library whose MEMBER is replaced per mutant; pinsim configured once
    in PINSIM_BUILD against SRC and the shadow."""

    def __init__(self, args):
        self.src, self.build, self.work = args.src, args.build, args.work
        self.pinsim_build = args.pinsim_build
        self.dir = os.path.join(self.work, "build")
        self.lib = os.path.join(self.dir, LIB)
        self.pinsim = os.path.join(self.pinsim_build, "tools", "pinsim")

    def create(self):
        if os.path.realpath(self.dir) == os.path.realpath(self.build):
            sys.exit("mooncake_mutants: the shadow must not be the user's build tree")
        if os.path.exists(self.dir):
            shutil.rmtree(self.dir)  # hard links: the user's files keep their other link
        os.makedirs(self.work, exist_ok=True)
        run(["cp", "-al", self.build, self.dir])
        os.unlink(self.lib)  # break the hard link before anything writes the library
        shutil.copyfile(os.path.join(self.build, LIB), self.lib)
        if os.stat(self.lib).st_nlink != 1:
            sys.exit(f"mooncake_mutants: {self.lib} is still hard-linked")
        # Debug sections only: linking the -g library took minutes with GNU ld,
        # without them seconds. The code is the same.
        run(["strip", "--strip-debug", self.lib])
        self.members = archive_members(self.lib)
        if self.members.count(MEMBER) != 1:
            sys.exit(f"mooncake_mutants: {LIB} holds {self.members.count(MEMBER)} members named {MEMBER}")

    def install(self, obj):
        """ar r the object into the shadow library and relink pinsim."""
        if os.stat(self.lib).st_nlink != 1:
            sys.exit(f"mooncake_mutants: {self.lib} is hard-linked; refusing to write it")
        if os.path.basename(obj) != MEMBER:
            sys.exit(f"mooncake_mutants: {obj} would not replace member {MEMBER}")
        run(["ar", "r", self.lib, obj])
        members = archive_members(self.lib)
        if len(members) != len(self.members) or members.count(MEMBER) != 1:
            sys.exit(f"mooncake_mutants: ar r changed the members of {self.lib}")
        before = os.stat(self.pinsim).st_mtime_ns if os.path.exists(self.pinsim) else 0
        # Only pinsim's link step: pinsim's own objects stay those built by
        # configure(), whatever is edited in its source meanwhile.
        run(["sh", "-c", self.link], cwd=self.pinsim_build)
        if os.stat(self.pinsim).st_mtime_ns == before:
            sys.exit("mooncake_mutants: pinsim was not relinked after the library changed")

    def configure(self, source):
        cache = os.path.join(self.pinsim_build, "CMakeCache.txt")
        if os.path.exists(cache):  # configured from another pinsim tree: start afresh
            with open(cache, encoding="utf-8", errors="replace") as f:
                home = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", f.read(), re.M)
            if home and os.path.realpath(home.group(1)) != os.path.realpath(source):
                shutil.rmtree(self.pinsim_build)
        run(["cmake", "-S", source, "-B", self.pinsim_build, "-G", "Ninja",
             f"-DPINSIM_MOONCAKE_SOURCE_DIR={self.src}", f"-DPINSIM_MOONCAKE_BUILD_DIR={self.dir}"])
        run(["cmake", "--build", self.pinsim_build, "-j1", "--target", "pinsim"])
        cmds = run(["ninja", "-C", self.pinsim_build, "-t", "commands", "tools/pinsim"]).stdout.splitlines()
        self.link = cmds[-1] if cmds else ""
        if "-o tools/pinsim" not in self.link:
            sys.exit(f"mooncake_mutants: no link command for tools/pinsim in {self.pinsim_build}")


# --- Running ----------------------------------------------------------------------------------

def usage_error(message):
    """Bad input: one line naming it, exit code 2."""
    usage_exit("mooncake_mutants", message)


def parse_budget(s):
    m = re.fullmatch(r"(\d+)(s|m)?", s)
    if not m:
        usage_error(f"a budget is seconds like 120s or 10m, got '{s}'")
    return int(m.group(1)) * (60 if m.group(2) == "m" else 1)


class Runner:
    def __init__(self, args, text, shadow):
        self.args, self.text, self.shadow = args, text, shadow
        self.src_file = os.path.join(args.src, FILE)
        self.cwd, self.argv = compile_command(args.build, self.src_file)
        self.baseline_object = os.path.join(args.work, "baseline", MEMBER)

    def compile(self, tag, site):
        """Writes the mutated source under WORK/tag and compiles it; returns
        (object path or None, seconds, compiler message)."""
        d = os.path.join(self.args.work, tag)
        os.makedirs(d, exist_ok=True)
        src = os.path.join(d, "master_service.cpp")
        with open(src, "w", encoding="utf-8") as f:
            f.write(mutate(self.text, site) if site else self.text)
        obj = os.path.join(d, MEMBER)
        if os.path.exists(obj):
            os.unlink(obj)
        t = time.monotonic()
        p = subprocess.run(mutant_argv(self.argv, self.src_file, src, obj, self.args.keep_g),
                           cwd=self.cwd, text=True, capture_output=True)
        secs = time.monotonic() - t
        if p.returncode != 0:
            errors = [l for l in p.stderr.splitlines() if "error" in l]
            return None, secs, (errors[0] if errors else p.stderr.strip()[-300:])
        return obj, secs, ""

    def prepare(self, tag, obj):
        """Installs the object and keeps a private copy of the relinked pinsim."""
        t = time.monotonic()
        self.shadow.install(obj)
        exe = os.path.join(self.args.work, tag, "pinsim")
        shutil.copy2(self.shadow.pinsim, exe)
        return exe, time.monotonic() - t

    def start_gate(self, tag, exe, budget, base=None, stop=True):
        d = os.path.join(self.args.work, tag)
        out = os.path.join(d, f"gate-{budget}s")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        cmd = [exe, "gate", "--target", "mooncake", "--budget", f"{budget}s",
               "--json", os.path.join(out, "gate.json"), "--markdown", os.path.join(out, "gate.md"),
               "--out", os.path.join(out, "failures")]
        cmd += ["--stop-on-new"] if stop else []
        cmd += ["--jobs", str(self.args.gate_jobs)] if self.args.gate_jobs > 1 else []
        cmd += ["--base", base] if base else []
        log = open(os.path.join(out, "gate.log"), "w")
        p = subprocess.Popen(cmd, cwd=d, stdout=log, stderr=subprocess.STDOUT)
        g = {"proc": p, "log": log, "out": out, "exe": exe, "t0": time.monotonic(), "budget": budget}

        def wait():  # records the moment the gate ends, whoever waits for it later
            try:
                g["rc"] = p.wait(timeout=2 * budget + 120)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                g["rc"] = None
            g["t1"] = time.monotonic()
        g["waiter"] = threading.Thread(target=wait, daemon=True)
        g["waiter"].start()
        return g

    def finish_gate(self, g):
        g["waiter"].join()
        rc = g["rc"]
        g["log"].close()
        if os.path.exists(g["exe"]):
            os.unlink(g["exe"])  # 65 MB a copy; the object stays for reruns
        secs = round(g["t1"] - g["t0"], 1)
        verdict = {0: "survived", 1: "killed", 2: "error", 3: "checked nothing"}.get(rc)
        if rc is None:
            verdict = "timeout"
        elif verdict is None:
            verdict = "crashed"
        r = {"verdict": verdict, "exit": rc, "seconds": secs, "signature": "", "source": ""}
        try:
            with open(os.path.join(g["out"], "gate.json"), encoding="utf-8") as f:
                j = json.load(f)
            new = [x for x in j.get("failures", []) if x.get("verdict") in ("new", "changed")]
            if new:
                r["signature"], r["source"] = new[0]["signature"], new[0]["source"]
                r["new_failures"] = [f"{x['source']}: {x['signature']}" for x in new]
            r["seeds"] = sum(x.get("seeds_run", 0) for x in j.get("runs", []))
        except (OSError, ValueError):
            pass
        if verdict == "crashed":
            r.update(crash_verdict(g["out"], rc))
        return r


def crash_verdict(out, rc):
    """A gate that ended without a summary: killed when its log names the run
    and step the process crashed in (a CI job is red, with a counterexample),
    else crashed; rc None when the exit code is not known (--collect)."""
    try:
        with open(os.path.join(out, "gate.log"), errors="replace") as f:
            lines = f.read().strip().splitlines()
    except OSError:
        lines = []
    named = [x for x in lines if x.startswith("pinsim: the process crashed")]
    tail = (named or lines[-1:] or [""])[0]
    r = {"verdict": "crashed", "signature": f"exit {rc}: {tail[:200]}"}
    if (rc is None or rc < 0) and named:
        r["verdict"], r["crash"] = "killed", True
    return r


def pipeline(runner, jobs, budget, log, base=None, stop=True):
    """jobs: list of (tag, site or None, object or None). Compiles (when no
    object is given) and relinks job k+1 while the gate of job k runs; never
    more than two processes at once. Yields (tag, result dict)."""
    pending = None  # (tag, gate handle)
    for tag, site, obj in jobs:
        res = {}
        if obj is None:
            obj, secs, err = runner.compile(tag, site)
            res["compile_seconds"] = round(secs, 1)
            if obj is None:
                res.update(verdict="invalid", detail=err)
                log(f"{tag}: does not compile ({secs:.0f} s): {err}")
                yield tag, res
                continue
        if tag != "baseline" and same_object(obj, runner.baseline_object):
            res.update(verdict="equivalent", detail="object code identical to the unmutated source's "
                       "(trivial compiler equivalence): no gate run", seconds=0)
            log(f"{tag}: equivalent, its object is the unmutated one")
            yield tag, res
            continue
        exe, secs = runner.prepare(tag, obj)  # a private copy: the running gate keeps its own
        res["link_seconds"] = round(secs, 1)
        res["object"] = obj
        yield tag, res  # compile/link figures first
        if pending:  # the previous gate must end before the next starts
            ptag, g = pending
            yield ptag, runner.finish_gate(g)
        pending = (tag, runner.start_gate(tag, exe, budget, base, stop))
    if pending:
        ptag, g = pending
        yield ptag, runner.finish_gate(g)


# --- Report -------------------------------------------------------------------------------------

def markdown(r):
    out = [f"# Mutation testing of MasterService ({r['file']})", "",
           f"Tree `{r['src']}`, build `{r['build']}`; {r['sites_total']} sites in "
           f"{len(r['functions'])} functions, {len(r['mutants'])} mutants (seed {r['seed']}); "
           f"compiled {'with' if r['keep_g'] else 'without'} -g.", ""]
    if r.get("not_run"):
        out += [f"Collected from `{r['work']}` before the run ended: not run yet {', '.join(r['not_run'])}.", ""]
    for key in ("baseline", "baseline_rerun"):
        b = r.get(key)
        if not b:
            continue
        at = r["budget" if key == "baseline" else "rerun_budget"]
        built = (f"; compile {b['compile_seconds']} s, relink {b.get('link_seconds')} s"
                 if "compile_seconds" in b else "")
        out.append(f"Baseline (unmutated source, same pipeline) at {at} s: "
                   f"{b['verdict']} in {b['seconds']} s ({b.get('seeds', '?')} seeds){built}.")
        for f in b.get("new_failures", []):
            out.append(f"- its failure (pre-existing for the mutants): {f}")
        out.append("")
    if r.get("gate_jobs", 1) > 1:
        out += [f"Every gate ran its seeds in {r['gate_jobs']} worker processes (`gate --jobs {r['gate_jobs']}`).", ""]
    if r.get("differential"):
        out += ["Differential: each mutant ran the baseline's seeds (`gate --base`); "
                "a failure of the baseline's with the same source and signature is pre-existing, not a kill.", ""]
    out += ["| id | function | operator | line | verdict | seconds | signature |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for m in r["mutants"]:
        for key in [k for k in ("budget", "rerun") if k in m]:
            g = m[key]
            label = g["verdict"] + (f" ({r['rerun_budget']} s)" if key == "rerun" else "")
            out.append(f"| {m['id']} | {m['function']} | {m['operator']} | {m['line']} | {label} | "
                       f"{g.get('seconds', '')} | {(g.get('signature') or g.get('detail') or '').replace('|', '/')} |")
    out.append("")
    for key, b in (("budget", r["budget"]), ("rerun", r.get("rerun_budget"))):
        if key == "rerun" and not b:
            continue
        k, s = score_at(r, key)
        other = sum(1 for m in r["mutants"]
                    if m.get("budget", {}).get("verdict") not in ("killed", "survived", "equivalent"))
        same = sum(1 for m in r["mutants"] if m.get("budget", {}).get("verdict") == "equivalent")
        out.append(f"Score at {b} s: {k}/{k + s} killed"
                   + (f" = {100.0 * k / (k + s):.0f}%" if k + s else "")
                   + (f" ({other} not counted: invalid, crashed, timeout or error)" if other else "")
                   + (f"; {same} equivalent by their object code, not run" if same else "") + ".")
    surv = [m for m in r["mutants"] if final_verdict(m) == "survived"]
    out += ["", f"## Survivors ({len(surv)})", ""]
    for m in surv:
        out += [f"- {m['id']} {r['file']}:{m['line']} {m['function']} {m['operator']}",
                f"  - original: `{m['original']}`", f"  - mutated:  `{m['mutated']}`"]
    return "\n".join(out) + "\n"


def final_verdict(m):
    if m.get("rerun"):
        return m["rerun"]["verdict"]
    return m.get("budget", {}).get("verdict")


def score_at(r, key):
    """killed/(killed+survived) at the first budget, or after the reruns."""
    k = s = 0
    for m in r["mutants"]:
        v = m.get("budget", {}).get("verdict")
        if key == "rerun" and v == "survived" and "rerun" in m:
            v = m["rerun"]["verdict"]
            if v not in ("killed", "survived"):
                v = "survived"  # a rerun that did not conclude leaves it a survivor
        k += v == "killed"
        s += v == "survived"
    return k, s


# --- Main ----------------------------------------------------------------------------------------

def pinsim_commit(source):
    """HEAD of the pinsim tree built, '+dirty' with uncommitted changes to tracked files."""
    try:
        head = run(["git", "-C", source, "rev-parse", "--short", "HEAD"]).stdout.strip()
        dirty = run(["git", "-C", source, "status", "--porcelain", "--untracked-files=no"]).stdout.strip()
        return head + ("+dirty" if dirty else "")
    except (subprocess.CalledProcessError, OSError):
        return "unknown"


def reused_object(earlier, work, tag, source):
    """When earlier/tag holds the same mutated source and its object, both
    are copied to work/tag and the object's path is returned; else None
    (compile it)."""
    if not earlier:
        return None
    d = os.path.join(earlier, tag)
    try:
        with open(os.path.join(d, "master_service.cpp"), encoding="utf-8") as f:
            same = f.read() == source
    except OSError:
        return None
    if not same or not os.path.exists(os.path.join(d, MEMBER)):
        return None
    if os.path.realpath(d) == os.path.realpath(os.path.join(work, tag)):
        return os.path.join(d, MEMBER)
    os.makedirs(os.path.join(work, tag), exist_ok=True)
    for name in ("master_service.cpp", MEMBER):
        shutil.copyfile(os.path.join(d, name), os.path.join(work, tag, name))
    return os.path.join(work, tag, MEMBER)


def write_report(report, a, budget, rerun):
    """Scores, the budget curve, the Markdown (stdout and --report) and --json."""
    mutants = report["mutants"]
    comp = [m["compile_seconds"] for m in mutants if "compile_seconds" in m]
    report["compile_seconds_mean"] = round(sum(comp) / len(comp), 1) if comp else None
    for m in mutants:
        m.pop("_site", None)
        m.pop("object", None)
    report["score"] = {str(budget): dict(zip(("killed", "survived"), score_at(report, "budget")))}
    if rerun:
        report["score"][str(rerun)] = dict(zip(("killed", "survived"), score_at(report, "rerun")))
    budgets = sorted({b for b in (15, 30, 60, 120) if b < budget} | {budget} | ({rerun} if rerun else set()))
    _, rows = curve(report, a.work, budgets)
    report["curve"] = [{"budget": b, "killed": k, "counted": n} for b, k, n in rows]
    md = markdown(report) + "\n## Budget against score\n\n" + curve_markdown(
        rows, "Each kill counts at the budget its gate says it needed (tools/mutation_curve.py); "
              "every counted mutant is in the denominator, equivalent ones too.")
    if report.get("wall_seconds") is not None:
        md += f"\nWall time {report['wall_seconds']} s; mean compile {report['compile_seconds_mean']} s per mutant.\n"
    print(md)
    if a.report:
        with open(a.report, "w", encoding="utf-8") as f:
            f.write(md)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1)
            f.write("\n")


def collected(work, tag, budget):
    """A mutant's result read back from work/tag/gate-Bs (--collect): the
    verdict from its JSON summary, None when that gate never ended."""
    out = os.path.join(work, tag, f"gate-{budget}s")
    try:
        with open(os.path.join(out, "gate.json"), encoding="utf-8") as f:
            j = json.load(f)
    except (OSError, ValueError):
        if not os.path.exists(os.path.join(out, "gate.log")):
            return None
        # The gate wrote its log but no summary: it died (a signal) or was stopped.
        return dict({"exit": None, "seconds": None}, **crash_verdict(out, None))
    verdict = {"red": "killed", "green": "survived"}.get(j.get("verdict"), "error")
    new = [x for x in j.get("failures", []) if x.get("verdict") in ("new", "changed")]
    r = {"verdict": verdict, "exit": {"killed": 1, "survived": 0}.get(verdict, 3),
         "seconds": round(j.get("seconds", 0), 1), "signature": new[0]["signature"] if new else "",
         "source": new[0]["source"] if new else "",
         "seeds": sum(x.get("seeds_run", 0) for x in j.get("runs", []))}
    if new:
        r["new_failures"] = [f"{x['source']}: {x['signature']}" for x in new]
    return r


def collect(report, a, budget, rerun):
    """--collect: the report of a run that was stopped (or is still going),
    from the gate summaries under --work; mutants without one are left out."""
    base = collected(a.work, "baseline", budget)
    if base:
        base["verdict"] = "green" if base["verdict"] == "survived" else "red"
        report["baseline"] = base
    done = []
    for m in report["mutants"]:
        r = collected(a.work, m["id"], budget)
        if r is None and same_object(os.path.join(a.work, m["id"], MEMBER), os.path.join(a.work, "baseline", MEMBER)):
            r = {"verdict": "equivalent", "seconds": 0, "detail": "object code identical to the unmutated source's"}
        if r is None:
            continue
        m["budget"] = r
        if rerun and r["verdict"] == "survived" and collected(a.work, m["id"], rerun):
            m["rerun"] = collected(a.work, m["id"], rerun)
        done.append(m)
    report["not_run"] = [m["id"] for m in report["mutants"] if m not in done]
    report["mutants"] = done
    report["wall_seconds"] = None
    if not any("rerun" in m for m in done):
        rerun = report["rerun_budget"] = None
    write_report(report, a, budget, rerun)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", help="the Mooncake source tree (read only)")
    ap.add_argument("build", help="its build tree with compile_commands.json (read only)")
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", default="120s", help="gate budget per mutant")
    ap.add_argument("--rerun-survivors", metavar="BUDGET", help="run survivors again with this budget")
    ap.add_argument("--functions", default=os.path.join(HERE, "lifecycle_functions.txt"))
    ap.add_argument("--exclude", default=DEFAULT_EXCLUDE, help="regex of function names left out")
    ap.add_argument("--operators", default=",".join(OPERATORS))
    ap.add_argument("--work", default="/work/mut", help="shadow build, mutated sources, gate outputs")
    ap.add_argument("--pinsim-build", default=os.path.join(REPO, "build-mut"))
    ap.add_argument("--pinsim-source", default=REPO, help="the pinsim tree to build (default: this one)")
    ap.add_argument("--differential", action="store_true",
                    help="accept a red baseline: mutants run its seeds (gate --base), its failures pre-existing")
    ap.add_argument("--gate-jobs", type=int, default=1,
                    help="each gate's worker processes (gate --jobs; the next mutant relinks beside them)")
    ap.add_argument("--keep-g", action="store_true", help="compile mutants with -g (slower)")
    ap.add_argument("--list", action="store_true", help="list the sites and the sample, then stop")
    ap.add_argument("--collect", action="store_true",
                    help="build nothing, run nothing: the report from the gate summaries already under --work")
    ap.add_argument("--only", metavar="IDS", help="run only these mutants of the sample (M03,M17)")
    ap.add_argument("--objects-from", metavar="DIR",
                    help="an earlier --work: reuse its compiled objects where its mutated source is the same")
    ap.add_argument("--report", metavar="FILE", help="also write the Markdown report here")
    ap.add_argument("--json", metavar="FILE", help="write the JSON report here")
    a = ap.parse_args()
    a.src, a.build, a.work = (os.path.realpath(p) for p in (a.src, a.build, a.work))
    a.pinsim_build, a.pinsim_source = os.path.abspath(a.pinsim_build), os.path.abspath(a.pinsim_source)
    for p in (a.src, a.build):
        if a.work == p or a.work.startswith(p + os.sep):
            usage_error("--work must lie outside the user's trees")
    require_trees("mooncake_mutants", a.src, a.build, "compile_commands.json")
    budget = parse_budget(a.budget)
    rerun = parse_budget(a.rerun_survivors) if a.rerun_survivors else None
    ops = [o for o in a.operators.split(",") if o]
    if any(o not in OPERATORS for o in ops):
        usage_error(f"operators are {', '.join(OPERATORS)}")
    if not 1 <= a.gate_jobs <= 64:
        usage_error(f"--gate-jobs: 1 to 64 worker processes, got {a.gate_jobs}")
    log = lambda msg: print(msg, file=sys.stderr, flush=True)

    src_file = os.path.join(a.src, FILE)
    with open(src_file, encoding="utf-8") as f:
        text = f.read()
    all_names = lifecycle_names(a.functions, "mooncake_mutants")
    _, argv = compile_command(a.build, src_file)
    excluded = [n for n in all_names if a.exclude and re.search(a.exclude, n)]
    names = [n for n in all_names if n not in excluded]
    sites, absent = find_sites(text, names, defines_of(argv))
    sites = [s for s in sites if s["operator"] in ops]
    per = {}
    for s in sites:
        per.setdefault(s["operator"], 0)
        per[s["operator"]] += 1
    log(f"{len(sites)} sites in {len({s['function'] for s in sites})} functions "
        f"({', '.join(f'{o} {per.get(o, 0)}' for o in ops)}); "
        f"left out: {len(excluded)} functions by --exclude, absent from this tree: {', '.join(absent) or '-'}")
    picked = select(sites, a.count, a.seed)
    mutants = []
    for s in picked:
        original, mutated = describe(text, s)
        mutants.append({"id": s["id"], "function": s["function"], "operator": s["operator"],
                        "line": s["line"], "original": original, "mutated": mutated, "_site": s})
    print(f"{'id':<4} {'line':>6}  {'function':<34} {'operator':<13} original  ->  mutated")
    for m in mutants:
        print(f"{m['id']:<4} {FILE}:{m['line']:<6} {m['function']:<34} {m['operator']:<13} "
              f"{m['original']}  ->  {m['mutated']}")
    print(flush=True)
    if a.list:
        return 0
    if a.only:
        keep = {x for x in a.only.split(",") if x}
        if keep - {m["id"] for m in mutants}:
            sys.exit(f"mooncake_mutants: --only: no mutant {', '.join(sorted(keep - {m['id'] for m in mutants}))} "
                     f"in this sample")
        mutants = [m for m in mutants if m["id"] in keep]
    reuse = lambda tag, site: reused_object(a.objects_from, a.work, tag, mutate(text, site) if site else text)

    report = {"file": FILE, "src": a.src, "build": a.build, "work": a.work, "pinsim_source": a.pinsim_source,
              "pinsim_commit": pinsim_commit(a.pinsim_source), "seed": a.seed, "budget": budget,
              "rerun_budget": rerun, "keep_g": a.keep_g, "differential": a.differential, "gate_jobs": a.gate_jobs, "sites_total": len(sites),
              "sites_per_operator": per, "functions": sorted({s["function"] for s in sites}),
              "excluded_functions": excluded, "absent_functions": absent, "mutants": mutants}
    if a.collect:
        return collect(report, a, budget, rerun)
    t_start = time.monotonic()
    shadow = Shadow(a)
    log(f"shadow build {shadow.dir} (hard links of {a.build}; own copy of {LIB})")
    shadow.create()
    log(f"configuring pinsim ({a.pinsim_source}) in {a.pinsim_build} against {a.src} and the shadow")
    shadow.configure(a.pinsim_source)
    runner = Runner(a, text, shadow)

    # Baseline: the unmutated source through the same pipeline must be green
    # or, with --differential, merely run (whole budget, no --stop-on-new):
    # the mutants then run its seeds and its failures are pre-existing.
    def baseline(b, obj):
        res = {}
        for _, r in pipeline(runner, [("baseline", None, obj)], b, log, stop=not a.differential):
            res.update(r)
        log(f"baseline at {b} s: compile {res.get('compile_seconds', '-')} s, relink {res.get('link_seconds')} s, "
            f"gate {res.get('verdict')} in {res.get('seconds')} s ({res.get('seeds', '?')} seeds)")
        v = res.get("verdict")
        if v == "survived":
            res["verdict"] = "green"
        elif v == "killed" and a.differential:
            res["verdict"] = "red"
        else:
            log(f"mooncake_mutants: the baseline gate is not green ({v}, exit {res.get('exit')}, "
                f"{res.get('signature') or res.get('detail', '')}); see {a.work}/baseline/gate-{b}s"
                + ("" if a.differential else "; --differential runs the mutants against its seeds and failures"))
            return None, None
        res.pop("object", None)
        return res, (os.path.join(a.work, "baseline", f"gate-{b}s", "gate.json") if a.differential else None)

    base, base_json = baseline(budget, reuse("baseline", None))
    if not base:
        return 2
    report["baseline"] = base

    by_tag = {m["id"]: m for m in mutants}
    jobs = [(m["id"], m["_site"], reuse(m["id"], m["_site"])) for m in mutants]
    for tag, res in pipeline(runner, jobs, budget, log, base_json):
        m = by_tag[tag]
        if "verdict" in res and res["verdict"] != "invalid":
            m["budget"] = res
            log(f"{tag} {m['function']} {m['operator']} line {m['line']}: {res['verdict']} in {res['seconds']} s "
                f"{res.get('signature', '')}")
        else:
            m.update({k: v for k, v in res.items() if k in ("compile_seconds", "link_seconds", "object")})
            if res.get("verdict") == "invalid":
                m["budget"] = res
    if rerun:
        surv = [m for m in mutants if m.get("budget", {}).get("verdict") == "survived"]
        log(f"rerunning {len(surv)} survivors with a {rerun} s budget")
        base_json2 = None
        if a.differential and surv:
            report["baseline_rerun"], base_json2 = baseline(rerun, os.path.join(a.work, "baseline", MEMBER))
            if not report["baseline_rerun"]:
                return 2
        for tag, res in pipeline(runner, [(m["id"], m["_site"], m["object"]) for m in surv], rerun, log,
                                 base_json2):
            if "verdict" in res:
                by_tag[tag]["rerun"] = res
                log(f"{tag} rerun: {res['verdict']} in {res['seconds']} s {res.get('signature', '')}")
    # Leave the shadow and build-mut unmutated.
    runner.shadow.install(os.path.join(a.work, "baseline", MEMBER))
    report["wall_seconds"] = round(time.monotonic() - t_start)
    write_report(report, a, budget, rerun)
    return 0


if __name__ == "__main__":
    sys.exit(main())
