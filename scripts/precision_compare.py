#!/usr/bin/env python3
"""Compare Speed Matrix runs for scripts/bench-precision.sh.

  precision_compare.py pair ADAPTIVE/report.json FIXED/report.json [SUMMARY.json]
      each run's wall time, and each decode cell's total tok/s,
      per-request tok/s and ITL in both runs: the difference, and whether
      the two runs' own 95 % intervals allow it (|diff| <= sqrt(a^2 + b^2));
      SUMMARY.json keeps the figures the targets are judged by.
  precision_compare.py coverage NAME=DIR...
      runs of one cell (each DIR/N/report.json), one row per DIR: how many
      runs' 95 % intervals hold the mean of all runs, per figure.
  precision_compare.py targets OUTDIR
      the targets of BENCHMARKS.md, "Adaptive windows", judged from
      OUTDIR/{sim,mock,noisy,noisy-llmd,vllm}/summary.json: MET or MISSED
      each (the ±30 % target is met by either server at ≤ 50 %).

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


def pair(adaptive_path, fixed_path, summary_path=None):
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
    worst_rate = 0.0  # total and per-request tok/s: the figures the window waits for
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
            if field != "itl_ms":
                worst_rate = max(worst_rate, abs(d))
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
    if summary_path:
        with open(summary_path, "w") as f:
            json.dump({"adaptive_s": ta, "fixed_s": tb, "ratio": ta / tb, "cells": len(keys),
                       "worst_rate_diff": worst_rate, "worst_any_diff": worst, "worst_cell": worst_cell,
                       "simulated": bool(sim), "windows": windows}, f)


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


def coverage(*named):
    print("# Are the intervals honest? One cell measured again and again\n")
    print("Each figure: the spread between runs (sd), the median ± the runs claimed, and how many runs' "
          "intervals hold the mean of all runs (a 95 % interval: 17–20 of 20).\n")
    print("| server, cell | windows | runs' windows | " + " | ".join(n for n, _, _ in FIGURES) + " |")
    print("|---|---|---|" + "---|" * len(FIGURES))
    for item in named:
        name, _, d = item.rpartition("=")
        runs = runs_of(d)
        if not runs:
            print(f"| {name or d} | no Valid run | | " + " | " * len(FIGURES))
            continue
        rep, first = runs[0]
        sim = " (simulated)" if rep["engine"].get("simulated") else ""
        target = (first.get("precision") or {}).get("target") or 0
        mode = f"adaptive, ±{100 * target:g} %" if target else "fixed"
        windows = sorted(c["measured_s"] for _, c in runs)
        cols = []
        for _, field, pkey in FIGURES:
            vals = [c[field] for _, c in runs]
            m = sum(vals) / len(vals)
            sd = math.sqrt(sum((v - m) ** 2 for v in vals) / (len(vals) - 1)) if len(vals) > 1 else 0
            cis = [ci(c, pkey) for _, c in runs]
            held = sum(1 for v, e in zip(vals, cis) if e is not None and abs(v - m) <= e * v)
            known = sorted(e for e in cis if e is not None)
            med = known[len(known) // 2] if known else None
            cols.append(f"{100 * sd / m:.2f} %, ± {pct(med)}, **{held} of {len(runs)}**")
        print(f"| {name or d}, {label(first['context_tokens'])} × {first['concurrency']}{sim} | {mode} | "
              f"{windows[0]:.0f}–{windows[-1]:.0f} s | " + " | ".join(cols) + " |")
    print()


TARGETS = [("sim", "our simulator, Standard plan (simulated)", 0.40, 0.02),
           ("mock", "GuideLLM's mock server", 0.50, None),
           ("noisy", "GuideLLM's mock server, ±30 % between tokens", 0.50, None),
           ("noisy-llmd", "llm-d-inference-sim, ±30 % between tokens", 0.50, None),
           ("vllm", "the real vLLM rig", 1.00, None)]


def targets(out):
    print("# The targets (issue 39)\n")
    print("| server | adaptive ÷ fixed | target | total and per-request tok/s, largest difference | verdict |")
    print("|---|---|---|---|---|")
    for part, name, ratio, within in TARGETS:
        path = os.path.join(out, part, "summary.json")
        want = f"≤ {100 * ratio:.0f} %" if ratio < 1 else "no worse than fixed"
        if within is not None:
            want += f", figures within {100 * within:.0f} %"
        if not os.path.isfile(path):
            print(f"| {name} | not run | {want} | | NOT RUN |")
            continue
        with open(path) as f:
            sm = json.load(f)
        # "no worse than fixed": within a second a cell of the run's wall time.
        ok = sm["ratio"] <= ratio + (0.01 if ratio == 1.0 else 0)
        if within is not None:
            ok = ok and sm["worst_rate_diff"] <= within
        print(f"| {name} | {100 * sm['ratio']:.0f} % ({sm['adaptive_s']:.0f} s ÷ {sm['fixed_s']:.0f} s) | {want} "
              f"| {100 * sm['worst_rate_diff']:.2f} % | {'MET' if ok else 'MISSED'} |")
    print()


if __name__ == "__main__":
    if len(sys.argv) in (4, 5) and sys.argv[1] == "pair":
        pair(*sys.argv[2:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "coverage":
        coverage(*sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "targets":
        targets(sys.argv[2])
    else:
        sys.exit(__doc__)
