"""make_trace.py OUTDIR [REQUESTS] [MEAN_GAP_S] [SEED]: two Mooncake traces
of the same arrivals and lengths for the rig's trace step.

shared.jsonl: every request starts with the same two 512-token blocks
(hash ids 1 and 2, a system prompt), then one or two blocks of its own;
unique.jsonl: the same requests with every hash id new, so that nothing
is shared. Arrivals are Poisson (seeded), in ms from 0; prompts are 1,100
to 2,000 tokens, outputs 32. conversations.jsonl: eight ShareGPT
conversations of four turns, for the conversation replay."""
import json
import random
import sys

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 24
gap = float(sys.argv[3]) if len(sys.argv) > 3 else 1.5
rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
shared, unique = [], []
t, own, fresh = 0.0, 100, 10_000
for i in range(n):
    if i:
        t += rng.expovariate(1 / gap)
    length = rng.randint(1100, 2000)
    blocks = (length + 511) // 512
    ids = [1, 2] + list(range(own, own + blocks - 2))
    own += blocks - 2
    line = {"timestamp": int(t * 1000), "input_length": length, "output_length": 32}
    shared.append(dict(line, hash_ids=ids))
    unique.append(dict(line, hash_ids=list(range(fresh, fresh + blocks))))
    fresh += blocks
for name, lines in (("shared", shared), ("unique", unique)):
    with open(f"{out}/{name}.jsonl", "w") as f:
        f.writelines(json.dumps(x) + "\n" for x in lines)

# conversations.jsonl: 8 ShareGPT conversations of 4 user turns each, for
# the conversation replay: each turn a few sentences of its own.
topics = ["the prefix cache", "paged attention", "continuous batching", "speculative decoding",
          "quantized weights", "the KV cache", "tensor parallelism", "chunked prefill"]
with open(f"{out}/conversations.jsonl", "w") as f:
    for i, topic in enumerate(topics):
        turns = []
        for k in range(4):
            ask = f"Question {k + 1} about {topic}: " + " ".join(
                rng.choice(["why", "how", "when", "does", "it", "help", "serving", "latency", "memory", "throughput"]) for _ in range(60))
            turns.append({"from": "human", "value": ask})
            turns.append({"from": "gpt", "value": f"An answer about {topic}, part {k + 1}."})
        f.write(json.dumps({"conversations": turns}) + "\n")
