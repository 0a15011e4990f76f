"""Makes the rig's tiny model offline: a Llama with seeded random weights and
a byte-level BPE tokenizer trained here, in a folder `vllm serve DIR` loads
with HF_HUB_OFFLINE=1.

Usage: python make_model.py OUTDIR

Why each choice:
- head_dim 64: vLLM's CPU attention takes head sizes 32 to 256.
- 2 layers, hidden 256: two cores serve it at a few hundred tokens a second,
  enough for 10 s windows to hold thousands of tokens.
- vocab_size is exactly the tokenizer's size (special tokens included), so
  every id the model can emit detokenizes, and /tokenize agrees with the model.
- max_position_embeddings 8192: the matrix goes to 2K contexts plus output,
  and the rig's server caps max_model_len below it.
- initializer_range 0.1, not the usual 0.02: at 0.02 the random model's
  greedy text falls into a loop of a few tokens within 200 tokens (our loop
  detector then marks every cell Looped); at 0.1 an 800-token greedy text
  from a filler prompt used 646 distinct tokens and had no periodic tail.
- The tokenizer is trained on a corpus generated from a fixed seed, so the
  same folder comes out on every machine; the weights come from a fixed seed
  too.
"""

import json
import os
import random
import sys

CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
SPECIAL = ["<|begin_of_text|>", "<|end_of_text|>", "<|im_start|>", "<|im_end|>", "<|pad|>"]
VOCAB = 4096
SEED = 20261202

WORDS = (
    "the of and to in is that for it as was with be by on not he this are or his from at which "
    "but have an they you were her she there been one all we their has would when if so no what "
    "up out who them some could more into only other time than its then two may these any like "
    "first new now over such after most also made many did before must through back years where "
    "much your way well down should because each just those people how too little state good "
    "very make world still own see men work long get here between both life being under never "
    "day same another know while last might us great old year off come since against go came "
    "right used take three server token prefill decode context request cache memory latency "
    "throughput window matrix engine model weight tensor kernel thread core socket batch queue"
).split()


def corpus(n_lines):
    """Deterministic English-like text with digits and punctuation."""
    rng = random.Random(SEED)
    punct = [".", ",", ";", ":", "?", "!"]
    for _ in range(n_lines):
        words = [rng.choice(WORDS) for _ in range(rng.randint(6, 24))]
        if rng.random() < 0.3:
            words.insert(rng.randrange(len(words)), str(rng.randint(0, 99999)))
        words[0] = words[0].capitalize()
        yield " ".join(words) + rng.choice(punct)


def make_tokenizer(out):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB - len(SPECIAL),
        special_tokens=SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus(60000), trainer=trainer)
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<|begin_of_text|>",
        eos_token="<|im_end|>",
        pad_token="<|pad|>",
        additional_special_tokens=["<|end_of_text|>", "<|im_start|>"],
    )
    fast.chat_template = CHAT_TEMPLATE
    fast.model_max_length = 8192
    fast.save_pretrained(out)
    return fast


def make_model(out, tokenizer):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    vocab = len(tokenizer)
    cfg = LlamaConfig(
        vocab_size=vocab,
        hidden_size=256,
        intermediate_size=688,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=64,
        max_position_embeddings=8192,
        rms_norm_eps=1e-5,
        initializer_range=0.1,
        rope_theta=10000.0,
        tie_word_embeddings=False,
        bos_token_id=tokenizer.convert_tokens_to_ids("<|begin_of_text|>"),
        eos_token_id=tokenizer.convert_tokens_to_ids("<|im_end|>"),
        pad_token_id=tokenizer.convert_tokens_to_ids("<|pad|>"),
        torch_dtype="bfloat16",
    )
    torch.manual_seed(SEED)
    model = LlamaForCausalLM(cfg)
    model = model.to(torch.bfloat16)
    model.save_pretrained(out, safe_serialization=True)
    gen = {"bos_token_id": cfg.bos_token_id, "eos_token_id": cfg.eos_token_id,
           "pad_token_id": cfg.pad_token_id, "do_sample": False}
    with open(os.path.join(out, "generation_config.json"), "w") as f:
        json.dump(gen, f, indent=2)
    return vocab


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_model.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    tokenizer = make_tokenizer(out)
    vocab = make_model(out, tokenizer)
    with open(os.path.join(out, "config.json")) as f:
        cfg = json.load(f)
    if cfg["vocab_size"] != len(tokenizer):
        sys.exit(f"vocab_size {cfg['vocab_size']} != tokenizer size {len(tokenizer)}")
    print(f"model: {out}: llama, 2 layers, head_dim 64, vocab {vocab}, "
          f"max_position_embeddings {cfg['max_position_embeddings']}")


if __name__ == "__main__":
    main()
