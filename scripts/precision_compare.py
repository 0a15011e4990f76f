#!/usr/bin/env python3
"""Compare Speed Matrix runs for scripts/bench-precision.sh.

  precision_compare.py pair ADAPTIVE/report.json FIXED/report.json
      each run's wall time, and each decode cell's total tok/s,
      per-request tok/s and ITL in both runs: the difference, and whether
      the two runs' own 95 % intervals allow it (|diff| <= sqrt(a^2 + b^2)).
  precision_compare.py coverage FIXED_DIR ADAPTIVE_DIR
      runs of one cell (each DIR/N/report.json): how many runs' 95 %
      intervals hold the mean of all runs, per figure.

Markdown on stdout. Figures from the simulator are labelled simulated.
"""
import json
import math
import os
import sys
from datetime import datetime

FIGURES = [("total tok/s", "total_tok_s", "total_tok_s"),
           ("per-request tok/s", "per_request_tok_s", "per_request_tok_s"),
           ("ITL", "itl_ms", "itl_ms")]


def load(path):
    with open(path) as f:
        return json.load(f)


def wall_s(rep):
    run = rep["run"]
    parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
    return (parse(run["finished_at"]) - parse(run["started_at"])).total_seconds()


def decode_cells(rep):
    return {(r["context_tokens"], r["concurrency"]): r for r in rep["results"]
            if r["phase"] == "decode" and r["status"] == "Valid"}


def ci(r, key):
    p = (r.get("precision") or {}).get(key) or {}
    return p.get("rel_ci95") if not p.get("unknown") and p.get("method") else None


def label(ctx):
    return f"{ctx // 1024}K" if ctx % 1024 == 0 else str(ctx)


def pct(v):
    return "—" if v is None else f"{100 * v:.1f} %"


def pair(adaptive_path, fixed_path):
    a, b = load(adaptive_path), load(fixed_path)
    sim = " (simulated)" if a["engine"].get("simulated") or b["engine"].get("simulated") else ""
    ta, tb = wall_s(a), wall_s(b)
    ca, cb = decode_cells(a), decode_cells(b)
    keys = sorted(set(ca) & set(cb))
    print(f"# Adaptive windows beside fixed ones{sim}\n")
    print(f"- adaptive (--precision 1%): {ta:.0f} s; fixed (--precision off): {tb:.0f} s; "
          f"adaptive / fixed = {100 * ta / tb:.0f} %")
    print(f"- decode cells Valid in both: {len(keys)} (adaptive {len(ca)}, fixed {len(cb)})\n")
    print("| cell | window (s) | total tok/s adaptive | total tok/s fixed | total diff | per-request diff | ITL diff | within the runs' intervals |")
    print("|---|---|---|---|---|---|---|---|")
    worst, worst_cell, outside, over2 = 0.0, "", 0, 0
    for k in keys:
        ra, rb = ca[k], cb[k]
        diffs, inside = [], True
        for _, field, pkey in FIGURES:
            va, vb = ra[field], rb[field]
            d = va / vb - 1 if vb else float("nan")
            diffs.append(d)
            ea, eb = ci(ra, pkey), ci(rb, pkey)
            if ea is None or eb is None or abs(d) > math.hypot(ea, eb):
                inside = False
            if abs(d) > worst:
                worst, worst_cell = abs(d), f"{label(k[0])} × {k[1]} ({_name(field)})"
            if abs(d) > 0.02:
                over2 += 1
        outside += not inside
        print(f"| {label(k[0])} × {k[1]} | {ra['measured_s']:.0f} | {ra['total_tok_s']:,.1f} ± {pct(ci(ra, 'total_tok_s'))} "
              f"| {rb['total_tok_s']:,.1f} ± {pct(ci(rb, 'total_tok_s'))} | {100 * diffs[0]:+.2f} % "
              f"| {100 * diffs[1]:+.2f} % | {100 * diffs[2]:+.2f} % | {'yes' if inside else 'no'} |")
    windows = sorted(ca[k]["measured_s"] for k in keys)
    if windows:
        print(f"\n- adaptive windows {windows[0]:.0f}–{windows[-1]:.0f} s, median {windows[len(windows) // 2]:.0f} s")
    print(f"- largest difference, any figure: {100 * worst:.2f} % ({worst_cell}); figures more than 2 % apart: {over2} "
          f"of {3 * len(keys)}")
    print(f"- cells where some figure differs by more than the two runs' intervals allow: {outside} of {len(keys)}")


def _name(field):
    return next(n for n, f, _ in FIGURES if f == field)


def runs_of(d):
    out = []
    for name in sorted(os.listdir(d), key=lambda s: (len(s), s)):
        path = os.path.join(d, name, "report.json")
        if os.path.isfile(path):
            rep = load(path)
            cells = list(decode_cells(rep).values())
            if cells:
                out.append((rep, cells[0]))
    return out


def coverage(*dirs):
    print("# Are the intervals honest? One cell measured again and again\n")
    for d in dirs:
        runs = runs_of(d)
        if not runs:
            print(f"- {d}: no Valid run")
            continue
        rep, first = runs[0]
        sim = " (simulated)" if rep["engine"].get("simulated") else ""
        target = (first.get("precision") or {}).get("target") or 0
        mode = f"adaptive to ±{100 * target:g} %" if target else "fixed windows"
        windows = sorted(c["measured_s"] for _, c in runs)
        print(f"## {label(first['context_tokens'])} × {first['concurrency']}, {mode}{sim}: {len(runs)} runs, "
              f"windows {windows[0]:.0f}–{windows[-1]:.0f} s\n")
        print("| figure | mean of all runs | spread between runs (sd) | median ± | intervals holding the mean |")
        print("|---|---|---|---|---|")
        for name, field, pkey in FIGURES:
            vals = [c[field] for _, c in runs]
            m = sum(vals) / len(vals)
            sd = math.sqrt(sum((v - m) ** 2 for v in vals) / (len(vals) - 1)) if len(vals) > 1 else 0
            cis = [ci(c, pkey) for _, c in runs]
            held = sum(1 for v, e in zip(vals, cis) if e is not None and abs(v - m) <= e * v)
            known = sorted(e for e in cis if e is not None)
            med = known[len(known) // 2] if known else None
            print(f"| {name} | {m:,.2f} | {100 * sd / m:.2f} % | ± {pct(med)} | {held} of {len(runs)} ({100 * held / len(runs):.0f} %) |")
        print()


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "pair":
        pair(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == "coverage":
        coverage(*sys.argv[2:])
    else:
        sys.exit(__doc__)
