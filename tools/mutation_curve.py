#!/usr/bin/env python3
"""The budget curve of a mutation run: for each gate budget, the share of the
mutants that a gate of that budget kills.

A mutant's gate runs with --stop-on-new and ends at its first new failure, so
one gate per mutant says when the gate found the defect, not whether a
smaller budget would have. The gate splits every budget the same way (see
sim/gate.cpp): the scenario corpus and the tree's findings first, in full
whatever the budget, then the presets in turn, each an equal slice of 90% of
the budget less that first phase. A failure found tau seconds into a preset's
slice is therefore found by every budget B with (0.9 B - s0) / P >= tau, that
is B >= (s0 + P tau) / 0.9 (s0: when the campaign started, P: the presets); a
failure of the first phase by every budget. The gate writes that figure as a
failure's `budget_needed`.

Gates of pinsim builds that do not write it are estimated from their seeds:
the k-th seed of a preset of which the baseline ran n in its 120-s slice
needs a slice of k/n of that one (the baseline's speed of that preset).

usage: mutation_curve.py REPORT.json [--budgets 15,30,60,120,600] [--campaign-start S]
"""
import argparse
import json
import os
import sys

PHASE_ONE = ("scenario ", "finding ")


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def gate_json(work, tag, budget):
    return load(os.path.join(work, tag, f"gate-{budget}s", "gate.json"))


def first_new(g):
    return next((f for f in (g or {}).get("failures", []) if f.get("verdict") in ("new", "changed")), None)


class Estimator:
    """Budget needed for a failure of a gate that did not write budget_needed,
    from the baseline's seeds per preset at its budget."""

    def __init__(self, base, budget, campaign_start):
        self.presets = len(base.get("runs", [])) if base else 0
        self.seeds = {r["preset"]: len(r.get("seeds", [])) for r in (base or {}).get("runs", [])}
        self.s0 = base.get("campaign_start", campaign_start) if base else campaign_start
        self.usable = 0.9 * budget - (self.s0 or 0)

    def needed(self, g, f):
        src = f.get("source", "")
        if src.startswith(PHASE_ONE):
            return 0.0
        preset = src.split()[1] if src.startswith("preset ") else None
        run = next((r for r in g.get("runs", []) if r.get("preset") == preset), None)
        n = self.seeds.get(preset)
        if not run or not n or self.s0 is None:
            return None
        k = run.get("seeds", []).index(f["seed"]) + 1 if f.get("seed") in run.get("seeds", []) else len(run["seeds"])
        return (self.s0 + k * self.usable / n) / 0.9


def seed_of(source):
    parts = source.split()
    return int(parts[3]) if len(parts) == 4 and parts[2] == "seed" and parts[3].isdigit() else None


def kill_budgets(report, work, campaign_start=None):
    """{mutant id: budget needed (s), or None when it survived every gate
    run, or 'n/a' when it was not counted}."""
    base = gate_json(work, "baseline", report["budget"])
    est = Estimator(base, report["budget"], campaign_start)
    out = {}
    for m in report["mutants"]:
        first = m.get("budget", {}).get("verdict")
        if first not in ("killed", "survived"):
            out[m["id"]] = "n/a"
            continue
        out[m["id"]] = None
        for key, b in (("budget", report["budget"]), ("rerun", report.get("rerun_budget"))):
            if m.get(key, {}).get("verdict") != "killed":
                continue
            g = gate_json(work, m["id"], b)
            f = first_new(g)
            if f is None:
                out[m["id"]] = float(b)  # killed, but the summary is gone: count it at the budget that did
                break
            f = dict(f, seed=seed_of(f.get("source", "")))
            need = f.get("budget_needed", est.needed(g, f))
            out[m["id"]] = float(b) if need is None else min(float(need), float(b))
            break
    return out


def curve(report, work, budgets, campaign_start=None):
    need = kill_budgets(report, work, campaign_start)
    counted = [v for v in need.values() if v != "n/a"]
    rows = []
    for b in budgets:
        k = sum(1 for v in counted if v is not None and v <= b)
        rows.append((b, k, len(counted)))
    return need, rows


def markdown(rows, note=""):
    out = ["| budget | killed | score |", "| --- | --- | --- |"]
    for b, k, n in rows:
        out.append(f"| {b} s | {k}/{n} | {100.0 * k / n:.0f}% |" if n else f"| {b} s | 0/0 | - |")
    return "\n".join(out) + ("\n\n" + note if note else "") + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report", help="the --json report of tools/mooncake_mutants.py")
    ap.add_argument("--work", help="its --work directory (default: the report's)")
    ap.add_argument("--budgets", default="15,30,60,120,600")
    ap.add_argument("--campaign-start", type=float,
                    help="seconds before the campaign starts, for baselines whose summary lacks campaign_start")
    ap.add_argument("--exclude", default="", help="ids left out (equivalent or unreachable), comma-separated")
    a = ap.parse_args()
    report = load(a.report)
    if not report or "mutants" not in report:
        sys.exit(f"mutation_curve: {a.report}: not a mutation report")
    try:
        budgets = [float(x) for x in a.budgets.split(",") if x]
    except ValueError:
        sys.exit(f"mutation_curve: --budgets: expected seconds like 15,30,60, got '{a.budgets}'")
    work = a.work or report.get("work") or os.path.dirname(os.path.abspath(a.report))
    drop = {x for x in a.exclude.split(",") if x}
    report["mutants"] = [m for m in report["mutants"] if m["id"] not in drop]
    need, rows = curve(report, work, [int(b) if b.is_integer() else b for b in budgets], a.campaign_start)
    for mid, v in need.items():
        print(f"{mid}: " + ("not counted" if v == "n/a" else "survived" if v is None else f"{v:.1f} s"))
    print()
    print(markdown(rows), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
