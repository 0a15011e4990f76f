"""Records what a real vLLM server says, for the unit tests' testdata, and
checks the behaviours the engine relies on. Standard library only.

Usage: python record.py URL MODEL OUTDIR   (the API key in VLLM_API_KEY)

Writes into OUTDIR: version.json, models.json, tokenize.json,
tokenize-chat.json, metrics-idle.txt, metrics-load.txt, stream-completions.txt
and stream-chat.txt (raw SSE), error-*.json (status line first), and
greedy-text.txt (a long greedy completion, for the loop detector). Prints
one PASS/FAIL line per check; exits 1 if any fails.
"""

import http.client
import json
import os
import sys
import threading
import time
import urllib.parse

failed = False


def line(ok, name, text):
    global failed
    failed |= not ok
    print(f"{'PASS' if ok else 'FAIL'} {name}: {text}", flush=True)


class Server:
    def __init__(self, url, key):
        u = urllib.parse.urlsplit(url)
        self.host, self.port, self.key = u.hostname, u.port, key

    def conn(self, timeout=120):
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def headers(self, auth=True):
        h = {"Content-Type": "application/json"}
        if auth and self.key:
            h["Authorization"] = "Bearer " + self.key
        return h

    def call(self, method, path, body=None, auth=True, raw=None):
        c = self.conn()
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        c.request(method, path, body=data, headers=self.headers(auth))
        r = c.getresponse()
        text = r.read().decode("utf-8", "replace")
        c.close()
        return r.status, text

    def metrics(self):
        return self.call("GET", "/metrics")[1]


def gauge(metrics, name):
    total = None
    for l in metrics.splitlines():
        if l.startswith(name + "{") or l.startswith(name + " "):
            total = (total or 0) + float(l.rsplit(" ", 1)[1])
    return total


def save(out, name, text):
    with open(os.path.join(out, name), "w") as f:
        f.write(text)


def stream(srv, path, body, out_name, out, keep=True, stop_after=None):
    """Streams body to path; returns (chunks, text). With stop_after, closes
    the connection after that many chunks."""
    c = srv.conn()
    c.request("POST", path, body=json.dumps(body), headers=srv.headers())
    r = c.getresponse()
    raw, chunks = [], 0
    while True:
        l = r.readline()
        if not l:
            break
        raw.append(l.decode("utf-8", "replace"))
        if l.startswith(b"data: ") and l.strip() != b"data: [DONE]":
            chunks += 1
            if stop_after and chunks >= stop_after:
                break
    c.close()
    if keep:
        save(out, out_name, "".join(raw))
    return chunks, "".join(raw)


def main():
    url, model, out = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    srv = Server(url, os.environ.get("VLLM_API_KEY", ""))

    st, v = srv.call("GET", "/version")
    save(out, "version.json", v)
    line(st == 200 and "version" in json.loads(v), "record /version", v.strip())

    st, m = srv.call("GET", "/v1/models")
    save(out, "models.json", m)
    ml = json.loads(m)["data"][0].get("max_model_len")
    line(st == 200 and ml, "record /v1/models", f"{json.loads(m)['data'][0]['id']}, max_model_len {ml}")

    prompt = "The server measures prefill and decode of every context in the matrix."
    st, t = srv.call("POST", "/tokenize", {"model": model, "prompt": prompt})
    save(out, "tokenize.json", t)
    tj = json.loads(t)
    line(st == 200 and tj["count"] == len(tj["tokens"]), "record /tokenize", f"{tj['count']} tokens, max_model_len {tj.get('max_model_len')}")
    st, t = srv.call("POST", "/tokenize", {"model": model, "messages": [{"role": "user", "content": prompt}], "add_generation_prompt": True})
    save(out, "tokenize-chat.json", t)
    line(st == 200, "record /tokenize (chat)", f"{json.loads(t).get('count')} tokens with the chat template")

    idle = srv.metrics()
    save(out, "metrics-idle.txt", idle)
    line(gauge(idle, "vllm:num_requests_running") == 0, "record /metrics idle", f"{len(idle.splitlines())} lines, running 0")

    # Errors: the status line, then the body.
    errors = {
        "error-context-too-long.json": ("POST", "/v1/completions", {"model": model, "prompt": "word " * (ml + 100), "max_tokens": 16}),
        "error-max-tokens-too-large.json": ("POST", "/v1/completions", {"model": model, "prompt": "hello", "max_tokens": ml * 2}),
        "error-unknown-model.json": ("POST", "/v1/completions", {"model": "no-such-model", "prompt": "hello", "max_tokens": 4}),
        "error-bad-request.json": ("POST", "/v1/completions", {"model": model, "prompt": "hello", "max_tokens": -1}),
        "error-bad-json.json": ("POST", "/v1/completions", None),
        "error-no-key.json": ("POST", "/v1/completions", {"model": model, "prompt": "hello", "max_tokens": 4}),
    }
    for name, (method, path, body) in errors.items():
        st, text = srv.call(method, path, body, auth=name != "error-no-key.json", raw="{not json" if body is None else None)
        save(out, name, f"{st}\n{text}")
        line(400 <= st < 500, f"record {name[:-5]}", f"HTTP {st}: {text[:100]}")

    # Streams, as the engine asks for them.
    n, _ = stream(srv, "/v1/completions", {"model": model, "prompt": prompt, "max_tokens": 24, "stream": True,
                                           "ignore_eos": True, "temperature": 0,
                                           "stream_options": {"include_usage": True, "continuous_usage_stats": True}},
                  "stream-completions.txt", out)
    line(n >= 24, "record completions stream", f"{n} data chunks for 24 tokens (usage included)")
    n, _ = stream(srv, "/v1/chat/completions", {"model": model, "messages": [{"role": "user", "content": prompt}],
                                                "max_tokens": 24, "stream": True, "ignore_eos": True, "temperature": 0,
                                                "stream_options": {"include_usage": True, "continuous_usage_stats": True}},
                  "stream-chat.txt", out)
    line(n >= 24, "record chat stream", f"{n} data chunks for 24 tokens")

    # /metrics under load: four long streams, scraped while they run.
    threads = [threading.Thread(target=stream, args=(srv, "/v1/completions", {"model": model, "prompt": prompt + str(i), "max_tokens": 400,
               "stream": True, "ignore_eos": True, "temperature": 0}, "", out, False)) for i in range(4)]
    for th in threads:
        th.start()
    load, running, waiting = "", 0, 0
    deadline = time.time() + 60
    while time.time() < deadline and any(th.is_alive() for th in threads):
        load = srv.metrics()
        running = gauge(load, "vllm:num_requests_running") or 0
        waiting = gauge(load, "vllm:num_requests_waiting") or 0
        if running >= 4:
            save(out, "metrics-load.txt", load)
            break
        time.sleep(0.1)
    for th in threads:
        th.join()
    line(running >= 4, "record /metrics under load", f"running {running:.0f}, waiting {waiting:.0f} of 4 streams")

    # Closing a stream aborts its request on the server.
    stream(srv, "/v1/completions", {"model": model, "prompt": prompt, "max_tokens": 3000, "stream": True,
                                    "ignore_eos": True, "temperature": 0}, "", out, keep=False, stop_after=5)
    t0, running = time.time(), None
    while time.time() - t0 < 10:
        running = gauge(srv.metrics(), "vllm:num_requests_running")
        if running == 0:
            break
        time.sleep(0.1)
    line(running == 0, "abort on close", f"running 0 {time.time() - t0:.2f} s after the client closed a 3,000-token stream")

    # A long greedy text for the loop detector.
    st, g = srv.call("POST", "/v1/completions", {"model": model, "prompt": prompt, "max_tokens": 1500,
                                                  "temperature": 0, "ignore_eos": True})
    text = json.loads(g)["choices"][0]["text"]
    save(out, "greedy-text.txt", text)
    line(st == 200 and len(text) > 2048, "record greedy text", f"{len(text)} characters of 1,500 greedy tokens")

    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
