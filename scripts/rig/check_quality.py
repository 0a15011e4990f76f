"""Checks what `speedmatrix quality` measured against the real vLLM rig and
prints one PASS/FAIL line per check; exits 1 if any fails.

Usage: python check_quality.py reference NAME REF_JSON CONTEXTS
       python check_quality.py floor NAME QUALITY_JSON
       python check_quality.py drift NAME QUALITY_JSON
       python check_quality.py sweep NAME SWEEP_JSON

reference: the file holds probes at every context of CONTEXTS (comma-
separated token counts), each with its continuation, top-K and the
top-K under load (the noise floor).
floor: the server against the reference it recorded: every context
compared, judged at the noise floor (not real), top-1 at least 99 %.
drift: another server (float32 against a bf16 reference): at every
context the KLD mean is above the noise floor beyond both 95 % intervals
(its interval's low end above the floor's high end, checked here from the
figures, not only from the tool's verdict).

sweep: a sweep with --quality over dtype = bfloat16 (the baseline),
float32: the baseline recorded as the reference; float32 measured against
it, its drift real at every context, and its run's report.json quality
section passing the drift check above.

NAME prefixes every line ("quality same server", "quality float32").
"""

import json
import os
import sys

import check_report
from check_report import line  # the one PASS/FAIL line; check_report.failed counts them


def label(tokens):
    """A context as the tool writes it: 512, 2K."""
    return f"{tokens // 1024}K" if tokens % 1024 == 0 else str(tokens)


def figures(c):
    """A context's drift, one phrase: top-1 and KLD mean with intervals."""
    ci = c["ci"]
    return (f"top-1 {c['top1_pct']:.2f} % ({ci['top1_pct']['lo']:.2f}–{ci['top1_pct']['hi']:.2f}), "
            f"KLD mean {c['kld_mean']:.6f} ({ci['kld_mean']['lo']:.6f}–{ci['kld_mean']['hi']:.6f}), "
            f"p99 {c['kld_p99']:.5f}, {c['positions']} positions")


def check_reference(name, path, contexts):
    r = load(name, path)
    if r is None:
        return
    want = [int(c) for c in contexts.split(",")]
    for c in want:
        probes = [p for p in r.get("probes") or [] if p["context_tokens"] == c]
        whole = [p for p in probes if len(p["continuation"]) == r["continuation_tokens"] == len(p["top_k"]) == len(p.get("top_k_loaded") or [])]
        ok = len(probes) > 0 and len(whole) == len(probes) and len(probes[0]["prompt"]) == c
        line(ok, f"{name} {label(c)}", f"{len(probes)} probes of {len(probes[0]['prompt']) if probes else 0} prompt tokens, "
             f"{len(whole)} with {r['continuation_tokens']} continuation tokens, top {r['k']} and the loaded pass (the noise floor)")


def load(name, path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        line(False, name, f"cannot read {path}: {e}")
        return None


def contexts(name, q):
    """Pairs every reference context with its drift, its floor and its
    verdict; a context missing from any is a FAIL."""
    drift = {c["context_tokens"]: c for c in q.get("contexts") or []}
    floor = {c["context_tokens"]: c for c in (q.get("noise_floor") or {}).get("contexts") or []}
    verdict = {v["context_tokens"]: v for v in q.get("verdicts") or []}
    for c in q["reference"]["contexts"]:
        if c not in drift or c not in floor or c not in verdict or drift[c]["positions"] == 0:
            line(False, f"{name} {label(c)}", "not compared (no drift, floor or verdict in quality.json)")
            continue
        yield c, drift[c], floor[c], verdict[c]


def check(name, path, want_real, q=None):
    q = q or load(name, path)
    if q is None:
        return
    for c, d, f, v in contexts(name, q):
        beyond = d["ci"]["kld_mean"]["lo"] > f["ci"]["kld_mean"]["hi"]
        floor = (f"floor KLD mean {f['kld_mean']:.6f} ({f['ci']['kld_mean']['lo']:.6f}–{f['ci']['kld_mean']['hi']:.6f}), "
                 f"top-1 {f['top1_pct']:.2f} %")
        if want_real:
            ok = v["floor"] and v["real"] and beyond
            said = "real drift, above the noise floor beyond both intervals" if ok else "not above the noise floor"
        else:
            ok = v["floor"] and not v["real"] and not beyond and d["top1_pct"] >= 99
            said = "at the noise floor" if ok else "not at the noise floor"
        line(ok, f"{name} {label(c)}", f"{said}: {figures(d)}; {floor}")


def check_sweep(name, path):
    s = load(name, path)
    if s is None:
        return
    base = os.path.dirname(path)
    for c in s.get("configs") or []:
        q = c.get("quality") or {}
        n = f"{name} {c['name']}"
        if c.get("baseline"):
            line(q.get("state") == "measured" and q.get("reference"), n,
                 f"the baseline, quality {q.get('state') or 'pending'}{': recorded as the reference' if q.get('reference') else ''} {q.get('reason') or ''}".strip())
            continue
        drifts = q.get("contexts") or []
        ok = q.get("state") == "measured" and drifts and all(d.get("real") for d in drifts)
        line(ok, n, f"quality {q.get('state') or 'pending'} {q.get('reason') or ''}".strip() + "; " + "; ".join(
            f"{label(d['context_tokens'])}: top-1 {d['top1_pct']:.2f} %, KLD mean {d['kld_mean']:.6f}, {'real' if d.get('real') else 'not real'}"
            f"{', over the budget' if d.get('top1_over') or d.get('kld_over') else ''}" for d in drifts))
        r = load(n, os.path.join(base, c.get("folder") or c["name"], "report.json"))
        if r is not None and r.get("quality"):
            check(n + " report.json", None, True, r["quality"])
        elif r is not None:
            line(False, n, "its report.json has no quality section")


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("reference", "floor", "drift", "sweep"):
        sys.exit(__doc__)
    mode, name, path = sys.argv[1:4]
    try:
        if mode == "reference":
            check_reference(name, path, sys.argv[4])
        elif mode == "sweep":
            check_sweep(name, path)
        else:
            check(name, path, mode == "drift")
    except (KeyError, TypeError, IndexError, ValueError) as e:
        # A FAIL line, not only a traceback: the rig counts FAIL lines.
        line(False, name, f"{path} is not what the check expects: {e!r}")
    sys.exit(1 if check_report.failed else 0)


main()
