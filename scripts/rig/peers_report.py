"""Reads what scripts/rig/peers.sh left in OUTDIR and tells how the tools compare.

Usage:
  peers_report.py prompts REPORT_JSON CONCURRENCY OUTPUT_LEN SECONDS
      measured requests for each peer: whole waves of CONCURRENCY requests that
      fill SECONDS at the total tok/s speedmatrix measured (REPORT_JSON), at
      least 2 waves; 8 waves when REPORT_JSON has no figure.
  peers_report.py table OUTDIR CONCURRENCY INPUT_LEN OUTPUT_LEN TOOL...
      one line per tool (PASS, FAIL or SKIP), OUTDIR/side-by-side.md and
      OUTDIR/side-by-side.json; exits 1 when a tool that ran gave no numbers.

Standard library only: it runs on the system python3, outside the peers' venvs.
"""

import json
import os
import re
import sys

PEER_NAMES = {
    "speedmatrix": "speedmatrix run",
    "vllm": "vllm bench serve",
    "guidellm": "GuideLLM",
    "aiperf": "AIPerf",
    "inferenceperf": "inference-perf",
}


def read(path, default=None):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def read_json(path):
    text = read(path)
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def decode_cell(report):
    """The sustained-decode cell of a speedmatrix report.json, or None."""
    for cell in (report or {}).get("results") or []:
        if cell.get("phase") == "decode":
            return cell
    return None


def cmd_prompts(report_json, conc, out_len, seconds):
    cell = decode_cell(read_json(report_json))
    tok_s = (cell or {}).get("total_tok_s") or 0
    if tok_s <= 0:
        print(f"peers: no total tok/s in {report_json}: each peer sends 8 waves", file=sys.stderr)
        return 8 * conc
    wave_s = conc * out_len / tok_s
    return max(2, round(seconds / wave_s)) * conc


# --- the server's /metrics ---------------------------------------------------

COUNTERS = {
    "gen": "vllm:generation_tokens_total",
    "prompt": "vllm:prompt_tokens_total",
    "requests": "vllm:request_success_total",
    "ttft_sum": "vllm:time_to_first_token_seconds_sum",
    "ttft_count": "vllm:time_to_first_token_seconds_count",
    "e2e_sum": "vllm:e2e_request_latency_seconds_sum",
    "e2e_count": "vllm:e2e_request_latency_seconds_count",
}


def counters(text):
    """Each counter of COUNTERS summed over its label sets; None where absent."""
    sums = dict.fromkeys(COUNTERS)
    for line in (text or "").splitlines():
        if line.startswith("#"):
            continue
        m = re.match(r"([A-Za-z_:][\w:]*)(\{[^}]*\})?\s+(\S+)", line)
        if not m:
            continue
        for key, name in COUNTERS.items():
            if m.group(1) == name:
                try:
                    sums[key] = (sums[key] or 0) + float(m.group(3))
                except ValueError:
                    pass
    return sums


def busy(samples_text):
    """From the 1 s samples (times before and after the scrape, generation
    counter, CPU seconds of the tool's process tree), the server's tok/s and the tool's CPU seconds per
    1,000 tokens between the first and the last sample taken while the
    counter moved (strictly inside the busy span, so start-up, the first
    ramp and the exit stay out); {} when fewer than two such samples."""
    pts = []
    for line in (samples_text or "").splitlines():
        parts = line.split()
        if len(parts) == 4:  # a line without a counter (the scrape failed) has 3
            t_before, t_after, gen, cpu = (float(x) for x in parts)
            pts.append(((t_before + t_after) / 2, gen, cpu))
    if len(pts) < 3:
        return {}
    first, last = pts[0][1], pts[-1][1]
    inside = [p for p in pts if first < p[1] < last]
    if len(inside) < 2 or inside[-1][0] <= inside[0][0] or inside[-1][1] <= inside[0][1]:
        return {}
    (t0, g0, c0), (t1, g1, c1) = inside[0], inside[-1]
    return {"tok_s": (g1 - g0) / (t1 - t0), "cpu_s_per_1k_tok": (c1 - c0) / ((g1 - g0) / 1000), "span_s": t1 - t0}


def server_figures(d):
    before, after = counters(read(os.path.join(d, "metrics-before.txt"))), counters(read(os.path.join(d, "metrics-after.txt")))
    t0, t1 = read(os.path.join(d, "t0")), read(os.path.join(d, "t1"))
    out = {"wall_s": float(t1) - float(t0) if t0 and t1 else None}
    delta = {k: (after[k] - before[k]) if after[k] is not None and before[k] is not None else None for k in COUNTERS}
    out["gen_tokens"] = delta["gen"]
    out["prompt_tokens"] = delta["prompt"]
    out["requests"] = delta["requests"]
    out["tok_s_run"] = delta["gen"] / out["wall_s"] if delta["gen"] is not None and out["wall_s"] else None
    b = busy(read(os.path.join(d, "server-samples.txt")))
    out["tok_s_busy"], out["busy_s"] = b.get("tok_s"), b.get("span_s")
    out["cpu_s_per_1k_tok_busy"] = b.get("cpu_s_per_1k_tok")
    if delta["ttft_count"]:
        out["ttft_mean_ms"] = 1000 * delta["ttft_sum"] / delta["ttft_count"]
    if delta["e2e_count"]:
        out["e2e_mean_ms"] = 1000 * delta["e2e_sum"] / delta["e2e_count"]
    if delta["requests"]:
        out["prompt_tokens_per_request"] = delta["prompt"] / delta["requests"]
        out["gen_tokens_per_request"] = delta["gen"] / delta["requests"]
    return out


def cpu_figures(d):
    text = read(os.path.join(d, "time.txt")) or ""
    vals = dict(re.findall(r"(\w+)=([\d.]+)", text))
    if "user_s" not in vals:
        return {}
    return {"user_s": float(vals["user_s"]), "sys_s": float(vals["sys_s"]), "wall_s": float(vals["wall_s"]),
            "cpu_s": float(vals["user_s"]) + float(vals["sys_s"])}


# --- each tool's own figures ------------------------------------------------


def own_speedmatrix(d):
    report = read_json(os.path.join(d, "run", "report.json"))
    load = (report or {}).get("load")
    if load:
        rate = (load.get("results") or [{}])[0]
        if not rate.get("output_tok_s"):
            return None
        return {
            "tok_s": rate["output_tok_s"],
            "ttft_ms": (rate.get("ttft_ms") or {}).get("p50"),
            "ttft_mean_ms": (rate.get("ttft_ms") or {}).get("mean"),
            "tpot_ms": (rate.get("tpot_ms") or {}).get("p50"),
            "e2e_mean_ms": (rate.get("e2e_ms") or {}).get("mean"),
            "req_s": rate.get("request_throughput_rps"),
            "output_tokens": rate.get("output_tokens"),
            "requests": rate.get("completed"),
            "failed": rate.get("failed"),
            "measured_s": rate.get("duration_s"),
            "status": rate.get("status"),
            "behind_ms": rate.get("behind_ms"),
        }
    cell = decode_cell(report)
    if not cell or not cell.get("total_tok_s"):
        return None
    srv = cell.get("server") or {}
    return {
        "tok_s": cell["total_tok_s"],
        "ttft_ms": cell.get("ttft_ms"),
        "output_tokens": cell.get("output_tokens"),
        "requests": cell.get("completed"),
        "measured_s": cell.get("measured_s"),
        "status": cell.get("status"),
        "server_crosscheck_tok_s": srv.get("tok_s"),
        "server_crosscheck_source": srv.get("tok_source"),
    }


def own_vllm(d):
    r = read_json(os.path.join(d, "result.json"))
    if not r or not r.get("output_throughput"):
        return None
    return {
        "tok_s": r["output_throughput"],
        "ttft_ms": r.get("median_ttft_ms"),
        "ttft_mean_ms": r.get("mean_ttft_ms"),
        "tpot_ms": r.get("median_tpot_ms"),
        "e2e_mean_ms": r.get("mean_e2el_ms"),
        "req_s": r.get("request_throughput"),
        "output_tokens": r.get("total_output_tokens"),
        "requests": r.get("completed"),
        "failed": r.get("failed"),
        "measured_s": r.get("duration"),
    }


def own_guidellm(d):
    r = read_json(os.path.join(d, "benchmarks.json"))
    try:
        b = r["benchmarks"][0]
        m = b["metrics"]
        tok_s = m["output_tokens_per_second"]["successful"]["mean"]
        ttft = m["time_to_first_token_ms"]["successful"]["median"]
    except (KeyError, IndexError, TypeError):
        return None
    if not tok_s:
        return None
    totals = (b.get("scheduler_metrics") or {}).get("requests_made") or {}
    out_tok = (m.get("output_token_count") or {}).get("successful") or {}

    def mean(name, scale=1):
        v = ((m.get(name) or {}).get("successful") or {}).get("mean")
        return v * scale if v is not None else None

    return {
        "tok_s": tok_s,
        "ttft_ms": ttft,
        "ttft_mean_ms": mean("time_to_first_token_ms"),
        "tpot_ms": ((m.get("inter_token_latency_ms") or {}).get("successful") or {}).get("median"),  # GuideLLM: (E2E − TTFT) ÷ (tokens − 1)
        "e2e_mean_ms": mean("request_latency", 1000),  # seconds in GuideLLM
        "req_s": mean("requests_per_second"),
        "output_tokens": out_tok.get("total_sum"),
        "requests": totals.get("successful"),
        "failed": totals.get("errored"),
        "measured_s": b.get("duration"),
    }


def own_aiperf(d):
    r = read_json(os.path.join(d, "artifacts", "profile_export_aiperf.json"))
    if not r:
        return None
    metrics = r.get("records") if isinstance(r.get("records"), dict) else r

    def stat(name, key):
        v = metrics.get(name)
        return v.get(key) if isinstance(v, dict) else None

    tok_s = stat("output_token_throughput", "avg")
    if not tok_s:
        return None
    return {
        "tok_s": tok_s,
        "ttft_ms": stat("time_to_first_token", "p50"),
        "ttft_mean_ms": stat("time_to_first_token", "avg"),
        "tpot_ms": stat("inter_token_latency", "p50"),
        "e2e_mean_ms": stat("request_latency", "avg"),
        "req_s": stat("request_throughput", "avg"),
        "output_tokens": stat("total_output_tokens", "avg"),
        "requests": stat("request_count", "avg"),
        "failed": stat("error_request_count", "avg"),
        "measured_s": stat("benchmark_duration", "avg"),
    }


def own_inferenceperf(d):
    r = read_json(os.path.join(d, "reports", "stage_0_lifecycle_metrics.json"))
    try:
        ok = r["successes"]
        lat, thr = ok["latency"], ok["throughput"]
        tok_s = thr["output_tokens_per_sec"]
    except (KeyError, TypeError):
        return None
    if not tok_s:
        return None

    def ms(name, key):  # seconds in inference-perf
        v = (lat.get(name) or {}).get(key)
        return v * 1000 if v is not None else None

    return {
        "tok_s": tok_s,
        "ttft_ms": ms("time_to_first_token", "median"),
        "ttft_mean_ms": ms("time_to_first_token", "mean"),
        "tpot_ms": ms("time_per_output_token", "median"),  # (last − first token) ÷ (tokens − 1)
        "e2e_mean_ms": ms("request_latency", "mean"),
        "req_s": thr.get("requests_per_sec"),
        "output_tokens": (ok.get("output_tokens") or {}).get("total"),
        "requests": ok.get("count"),
        "failed": (r.get("failures") or {}).get("count"),
        "measured_s": r.get("benchmark_time_seconds"),
    }


OWN = {"speedmatrix": own_speedmatrix, "vllm": own_vllm, "guidellm": own_guidellm, "aiperf": own_aiperf, "inferenceperf": own_inferenceperf}


def version(d):
    """The tool's version: the last x.y[.z…] in what its --version printed."""
    found = re.findall(r"\d+\.\d+[\w.+-]*", read(os.path.join(d, "version.txt")) or "")
    return found[-1] if found else None


def fmt(v, digits=1):
    if v is None:
        return "–"
    return f"{v:,.{digits}f}"


def cmd_table(out, conc, in_len, out_len, tools):
    simulated = "speedmatrix_simulator_profile" in (read_json(os.path.join(out, "server-version.json")) or {})
    rows, failed = [], False
    for tool in tools:
        d = os.path.join(out, tool)
        row = {"tool": tool, "name": PEER_NAMES[tool], "version": version(d)}
        skip, fail = read(os.path.join(d, "skip")), read(os.path.join(d, "fail"))
        if skip is not None:
            row["result"], row["why"] = "SKIP", skip.strip()
            rows.append(row)
            continue
        own = OWN[tool](d) if fail is None else None
        row.update(own=own, server=server_figures(d), cpu=cpu_figures(d))
        row["command"] = (read(os.path.join(d, "command.txt")) or "").strip()
        row["exit"] = (read(os.path.join(d, "exit")) or "").strip()
        tokens = row["server"].get("gen_tokens") or (own or {}).get("output_tokens")
        if row["cpu"] and tokens:
            row["cpu_s_per_1k_tok"] = row["cpu"]["cpu_s"] / (tokens / 1000)
        if own and own.get("tok_s") and own.get("ttft_ms") is not None and "cpu_s_per_1k_tok" in row:
            row["result"] = "PASS"
        else:
            row["result"], failed = "FAIL", True
            row["why"] = (fail or "").strip() or f"no numbers in {d} (exit {row['exit']}; see stderr.txt)"
        rows.append(row)

    label = " (simulated)" if simulated else ""
    for row in rows:
        if row["result"] == "SKIP":
            print(f"SKIP peer {row['tool']}: {row['why']}")
        elif row["result"] == "FAIL":
            print(f"FAIL peer {row['tool']}: {row['why']}")
        else:
            srv, own = row["server"], row["own"]
            notes = "".join([f", {own['failed']:.0f} failed requests" if own.get("failed") else "",
                             f", cell {own['status']}" if own.get("status") not in (None, "Valid") else ""])
            print(f"PASS peer {row['tool']}: {own['tok_s']:.1f} tok/s, TTFT {own['ttft_ms']:.0f} ms, "
                  f"{row['cpu_s_per_1k_tok']:.2f} CPU-s/1k tok ({fmt(srv['cpu_s_per_1k_tok_busy'], 2)} while busy); "
                  f"server {fmt(srv['tok_s_busy'])} tok/s busy, {fmt(srv['tok_s_run'])} over the run{notes}{label}")

    rate = os.environ.get("PEERS_RATE") or None
    doc = {"simulated": simulated, "rate_rps": float(rate) if rate else None,
           "arrivals": os.environ.get("PEERS_ARRIVALS") or "poisson", "concurrency": conc, "input_len": in_len, "output_len": out_len, "tools": rows}
    with open(os.path.join(out, "side-by-side.json"), "w") as f:
        json.dump(doc, f, indent=2)
    with open(os.path.join(out, "side-by-side.md"), "w") as f:
        f.write(markdown(doc))
    return 1 if failed else 0


def gap(tool_ms, server_ms):
    """How far a tool's mean latency is from the server's own, in ms and %."""
    if tool_ms is None or not server_ms:
        return "–"
    return f"{tool_ms - server_ms:+,.1f} ms ({100 * (tool_ms - server_ms) / server_ms:+.1f} %)"


def markdown_rate(doc):
    sim = doc["simulated"]
    lines = [
        f"# Side by side: a load test at {doc['rate_rps']:g} requests/s ({doc['arrivals']}), input {doc['input_len']}, "
        f"output {doc['output_len']} tokens" + (" — SIMULATED" if sim else ""),
        "",
        "| tool | version | requests (failed) | req/s (tool) | output tok/s (tool) | mean TTFT ms (tool) "
        "| mean TTFT ms (server) | tool − server | mean E2E ms (tool) | mean E2E ms (server) | tool − server "
        "| client CPU-s / 1k tok |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in doc["tools"]:
        if r["result"] == "SKIP":
            lines.append(f"| {r['name']} | {r['version'] or '–'} | SKIP: {r['why']} | | | | | | | | | |")
            continue
        own, srv = r.get("own") or {}, r.get("server") or {}
        name = "speedmatrix load" if r["tool"] == "speedmatrix" else r["name"]
        lines.append("| " + " | ".join([
            name + ("" if r["result"] == "PASS" else " (FAIL)"), r["version"] or "–",
            f"{fmt(own.get('requests'), 0)} ({fmt(own.get('failed') or 0, 0)})", fmt(own.get("req_s"), 2),
            fmt(own.get("tok_s")), fmt(own.get("ttft_mean_ms")), fmt(srv.get("ttft_mean_ms")),
            gap(own.get("ttft_mean_ms"), srv.get("ttft_mean_ms")), fmt(own.get("e2e_mean_ms")),
            fmt(srv.get("e2e_mean_ms")), gap(own.get("e2e_mean_ms"), srv.get("e2e_mean_ms")),
            fmt(r.get("cpu_s_per_1k_tok"), 3)]) + " |")
    lines += [
        "",
        "- Every tool sends the same number of requests at the same mean rate, "
        + ("Poisson arrivals (the draws of arrival times differ by tool)" if doc["arrivals"] == "poisson"
           else "constant arrivals (the same times in every tool)")
        + ", no warm-up, no concurrency cap, ignore_eos, on the completions API.",
        "- *server* means: the deltas of vllm:time_to_first_token_seconds and vllm:e2e_request_latency_seconds "
        "(sum ÷ count) over the tool's run. The server times a request from when it reached the engine, so a "
        "tool's mean is above the server's by what the request spent in HTTP, the API server and the client: "
        "the smaller that gap, the closer the tool's latency is to what the server did.",
        "- speedmatrix counts each request from its scheduled arrival, not from when its client sent it.",
        "",
        "## Agreement with speedmatrix",
        "",
        "| tool | request throughput | median TTFT | median TPOT |",
        "| --- | ---: | ---: | ---: |",
    ]
    ours = next((r.get("own") or {} for r in doc["tools"] if r["tool"] == "speedmatrix" and r["result"] == "PASS"), {})
    for r in doc["tools"]:
        own = r.get("own") or {}
        if r["result"] != "PASS":
            continue
        cells = []
        for key, digits in (("req_s", 3), ("ttft_ms", 1), ("tpot_ms", 2)):
            v, base = own.get(key), ours.get(key)
            if v is None:
                cells.append("–")
            elif r["tool"] == "speedmatrix" or not base:
                cells.append(fmt(v, digits))
            else:
                cells.append(f"{fmt(v, digits)} ({100 * (v - base) / base:+.1f} %)")
        name = "speedmatrix load" if r["tool"] == "speedmatrix" else r["name"]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "- Units: requests/s, ms, ms. In brackets: the peer's figure against speedmatrix's. TPOT per request is "
        "(E2E − TTFT) ÷ (output tokens − 1), its median over the requests, in every tool; GuideLLM and "
        "AIPerf call it inter-token latency (their median, p50).",
    ]
    return "\n".join(lines) + "\n"


def markdown(doc):
    if doc.get("rate_rps"):
        return markdown_rate(doc)
    sim = doc["simulated"]
    lines = [
        f"# Side by side: concurrency {doc['concurrency']}, input {doc['input_len']}, output {doc['output_len']} tokens"
        + (" — SIMULATED" if sim else ""),
        "",
    ]
    if sim:
        lines += ["Every figure below was measured against the speedmatrix simulator: it is **simulated**, "
                  "not a GPU's. Client CPU is real (this machine's).", ""]
    lines += [
        "| tool | version | output tok/s (tool) | median TTFT ms (tool) | server tok/s, busy | server tok/s, run "
        "| client CPU-s / 1k tok, run | client CPU-s / 1k tok, busy | wall s | server prompt tok/req "
        "| server output tok/req |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in doc["tools"]:
        if r["result"] == "SKIP":
            lines.append(f"| {r['name']} | {r['version'] or '–'} | SKIP: {r['why']} | | | | | | | | |")
            continue
        own, srv = r.get("own") or {}, r.get("server") or {}
        lines.append("| " + " | ".join([
            r["name"] + ("" if r["result"] == "PASS" else " (FAIL)"), r["version"] or "–",
            fmt(own.get("tok_s")), fmt(own.get("ttft_ms"), 0), fmt(srv.get("tok_s_busy")), fmt(srv.get("tok_s_run")),
            fmt(r.get("cpu_s_per_1k_tok"), 3), fmt(srv.get("cpu_s_per_1k_tok_busy"), 3), fmt(srv.get("wall_s"), 0),
            fmt(srv.get("prompt_tokens_per_request"), 0), fmt(srv.get("gen_tokens_per_request"), 0)]) + " |")
    lines += [
        "",
        "- *output tok/s, median TTFT (tool)*: each tool's own figures (speedmatrix: tokens in its window ÷ window; "
        "the peers: output tokens ÷ benchmark duration, the warm-up wave left out).",
        "- *server tok/s*: vllm:generation_tokens_total, sampled every second. *busy*: between the first and "
        "the last sample taken while it moved; *run*: its delta ÷ the tool's wall time (start-up included).",
        "- *client CPU-s / 1k tok*: user+sys CPU of the tool's process tree per 1,000 tokens the server "
        "generated. *run*: GNU time over the whole run (start-up included); *busy*: the tree's CPU from "
        "/proc over the same busy span as the server's tok/s (the cost of load generation alone).",
        "- *server prompt / output tok/req*: vllm:prompt_tokens_total and vllm:generation_tokens_total deltas "
        "÷ vllm:request_success_total delta, warm-up requests included: whether the tools sent the same "
        "lengths. speedmatrix cuts its last requests short at its window's end, so its output tok/req is "
        "not exactly the output length.",
        "- speedmatrix sends every request of a cell the same prompt (its prefix is then cached); the peers send "
        "a different prompt each time: speedmatrix's TTFT mostly leaves out prefill.",
    ]
    for r in doc["tools"]:
        if r.get("own", {}) and r["tool"] == "speedmatrix" and r["own"].get("server_crosscheck_tok_s"):
            lines.append(f"- speedmatrix's own server cross-check (report.json results[].server.tok_s, "
                         f"{r['own']['server_crosscheck_source']}, over its window): "
                         f"{r['own']['server_crosscheck_tok_s']:.1f} tok/s.")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) == 6 and argv[1] == "prompts":
        print(cmd_prompts(argv[2], int(argv[3]), int(argv[4]), float(argv[5])))
        return 0
    if len(argv) >= 7 and argv[1] == "table":
        tools = argv[6:]
        unknown = [t for t in tools if t not in PEER_NAMES]
        if unknown:
            sys.exit(f"peers_report: unknown tools {unknown}")
        return cmd_table(argv[2], int(argv[3]), int(argv[4]), int(argv[5]), tools)
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
