"""Checks a Speed Matrix report.json measured against the real vLLM rig and
prints one PASS/FAIL line per check; exits 1 if any fails.

Usage: python check_report.py NAME REPORT_JSON [--log SERVER_LOG]
         [--expect-preemptions] [--expect-captured]

NAME prefixes every line ("launch", "endpoint"). With --log, the KV cache
size that the server's own start-up log reports is the one Over capacity is
judged against.
"""

import argparse
import json
import re
import sys

failed = False


def line(ok, name, text):
    """Prints a PASS or FAIL line."""
    global failed
    failed |= not ok
    print(f"{'PASS' if ok else 'FAIL'} {name}: {text}")


def kv_from_log(path):
    with open(path, errors="replace") as f:
        for l in f:
            m = re.search(r"(?:GPU|CPU) KV cache size:\s*([0-9,]+)\s*tokens", l)
            if m:
                return int(m.group(1).replace(",", ""))
    return None


def check_load(n, r):
    """A load test's report: every rate complete, every request answered,
    the exact lengths the plan asked, the client on schedule, and the
    server's token counter in agreement with ours."""
    load = r["load"]
    plan = load["plan"]
    line(r["run"].get("complete") is True, f"{n} complete", f"{len(load['results'])} rates, complete={r['run'].get('complete')}")
    for res in load["results"]:
        name = f"{n} {res['rate_rps']:g}/s"
        line(res["status"] == "Valid", f"{name} status", f"{res['status']} {res.get('error') or ''}".strip())
        line(res["completed"] == res["requests"] and res["failed"] == 0, f"{name} requests",
             f"{res['completed']} of {res['requests']} completed, {res['failed']} failed")
        want = res["requests"] * plan["output_tokens"]["max"]
        line(res["output_tokens"] == want, f"{name} output tokens", f"{res['output_tokens']} received, {want} asked")
        ttft, e2e = res["ttft_ms"], res["e2e_ms"]
        line(0 < ttft["p50"] <= ttft["p99"] <= e2e["p99"], f"{name} latencies",
             f"TTFT p50 {ttft['p50']:.0f} ms ≤ p99 {ttft['p99']:.0f} ms ≤ E2E p99 {e2e['p99']:.0f} ms")
        line(res.get("behind_ms", 0) < 100, f"{name} schedule", f"the client sent at most {res.get('behind_ms', 0):.1f} ms late")
        srv = res.get("server") or {}
        if srv.get("tok_s") and res.get("output_tok_s"):
            diff = (srv["tok_s"] - res["output_tok_s"]) / res["output_tok_s"]
            line(abs(diff) <= 0.03, f"{name} cross-check", f"server {srv['tok_s']:.1f} tok/s, ours {res['output_tok_s']:.1f} ({diff:+.1%})")
        else:
            line(False, f"{name} cross-check", "no server figure in the report")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("report")
    ap.add_argument("--log")
    ap.add_argument("--expect-preemptions", action="store_true")
    ap.add_argument("--expect-captured", action="store_true")
    a = ap.parse_args()
    r = json.load(open(a.report))
    n = a.name
    if r.get("load"):
        check_load(n, r)
        return
    res = r["results"]
    plan = r["plan"]
    maxout = plan["max_output_tokens"]
    eng = r["engine"]

    line(r["run"].get("complete") is True, f"{n} complete", f"{len(res)} cells, complete={r['run'].get('complete')}")

    statuses = {}
    for c in res:
        statuses[c["status"]] = statuses.get(c["status"], 0) + 1
    bad = [c for c in res if c["status"] not in ("Valid", "Over capacity")]
    line(not bad, f"{n} statuses", ", ".join(f"{v} {k}" for k, v in sorted(statuses.items()))
         + ("" if not bad else "; not Valid: " + ", ".join(f"{c['phase']} {c['context_label']}×{c['concurrency']} {c['status']} ({c.get('reason') or c.get('error') or ''})" for c in bad[:5])))

    kv = eng.get("kv_cache_tokens") or 0
    if a.log:
        logkv = kv_from_log(a.log)
        line(logkv is not None and logkv > 0, f"{n} KV from log", f"the server's log says {logkv} tokens; report.json says {kv}")
        if logkv:
            kv = logkv
    wrong = []
    for c in res:
        if c["phase"] != "decode":
            continue
        need = c["concurrency"] * (c["context_tokens"] + maxout)
        over = kv > 0 and need > kv
        if (c["status"] == "Over capacity") != over:
            wrong.append(f"{c['context_label']}×{c['concurrency']} needs {need} of {kv}: {c['status']}")
    line(kv > 0 and not wrong, f"{n} over capacity", f"judged against {kv} KV tokens" + ("" if not wrong else "; wrong: " + "; ".join(wrong)))

    # A request still streaming when its window closed never got its final
    # usage: its prompt size is unknown (0), not wrong.
    inexact, counted, unknown = [], 0, 0
    for c in res:
        for q in c.get("requests") or []:
            if not q.get("prompt_tokens"):
                unknown += 1
                continue
            counted += 1
            if q["prompt_tokens"] != c["context_tokens"]:
                inexact.append(f"{c['phase']} {c['context_label']}×{c['concurrency']}: {q['prompt_tokens']}")
    line(counted > 0 and not inexact, f"{n} exact prompts", f"{counted} requests, every prompt exactly its context by the server's usage"
         f" ({unknown} cut off at their window's end, before usage)" + ("" if not inexact else "; off: " + "; ".join(inexact[:5])))

    worst, rows, missing = 0.0, [], []
    for c in res:
        if c["phase"] != "decode" or c["status"] != "Valid":
            continue
        s = c.get("server") or {}
        if not s.get("tok_s"):
            missing.append(f"{c['context_label']}×{c['concurrency']}")
            continue
        d = (s["tok_s"] - c["total_tok_s"]) / c["total_tok_s"] * 100
        rows.append(f"{c['context_label']}×{c['concurrency']} {d:+.1f}%")
        worst = max(worst, abs(d))
    line(bool(rows) and worst <= 3 and not missing, f"{n} cross-check",
         f"server vs ours on {len(rows)} decode cells, worst {worst:.1f}% (limit 3%): " + ", ".join(rows)
         + ("" if not missing else "; no server figure: " + ", ".join(missing)))

    checks = " ".join(r["run"].get("checks") or [])
    drains = [c.get("drain_s") for c in res if c["status"] == "Valid"]
    line("idle before the run" in checks and "drain barrier" in checks and all(d is not None for d in drains),
         f"{n} idle and drain", f"checks: {checks!r}; drain waited {max(d or 0 for d in drains):.2f} s at most")

    looped = [c for c in res if c["status"] == "Looped"]
    line(plan.get("loop_detection") and not looped, f"{n} loops", f"loop detection on, {len(looped)} cells Looped")

    if a.expect_preemptions:
        pre = sum((c.get("server") or {}).get("preemptions") or 0 for c in res)
        line(pre > 0, f"{n} preemptions", f"the server counted {pre} preemptions")
    if a.expect_captured:
        cmd = r.get("launch_command") or ""
        line("vllm" in cmd and "serve" in cmd, f"{n} captured command", cmd[:160])

    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
