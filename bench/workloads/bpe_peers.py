"""The peers of frost/tokenizers for bench/workloads/run.py (--only bpe), one task per run, a
JSON line on stdout:

    bpe_peers.py train TEXT VOCAB OUT.json        # tokenizers' BpeTrainer, same settings as Neve
    bpe_peers.py encode TOKENIZER.json TEXT       # tokenizers' encode and a tiktoken Encoding

Threads: tokenizers trains with rayon; RAYON_NUM_THREADS (set by run.py) sizes its pool. The
tiktoken Encoding is built from the trained vocabulary (mergeable_ranks: a token's bytes -> its
id, ids being merge order) with the GPT-2 pattern; tiktoken adds no prefix space, so it encodes
" " + text, as the ByteLevel pre-tokenizer sees it.
"""
from __future__ import annotations

import json
import sys
import time


def byte_decoder() -> dict[str, int]:
    """GPT-2's bytes_to_unicode, inverted: character -> byte."""
    bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def train(text: str, vocab: int, out: str) -> dict:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab, min_frequency=2, special_tokens=[],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    t0 = time.perf_counter()
    tok.train([text], trainer)
    spent = time.perf_counter() - t0
    tok.save(out)
    return {"train_s": spent}


def encode(tokenizer_json: str, path: str) -> dict:
    import tiktoken
    from tokenizers import Tokenizer
    text = open(path, encoding="utf-8").read()
    tok = Tokenizer.from_file(tokenizer_json)
    t0 = time.perf_counter()
    ids = tok.encode(text).ids
    hf_s = time.perf_counter() - t0
    dec = byte_decoder()
    vocab = json.load(open(tokenizer_json, encoding="utf-8"))["model"]["vocab"]
    ranks = {bytes(dec[c] for c in tok_str): i for tok_str, i in vocab.items()}
    enc = tiktoken.Encoding("bpe24", explicit_n_vocab=len(ranks), mergeable_ranks=ranks,
                            special_tokens={},
                            pat_str=r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")
    t0 = time.perf_counter()
    tk = enc.encode_ordinary(" " + text)
    tk_s = time.perf_counter() - t0
    differ = sum(1 for a, b in zip(ids, tk) if a != b) + abs(len(ids) - len(tk))
    return {"tokenizers_s": hf_s, "tiktoken_s": tk_s, "ids": ids, "tiktoken_differ": differ}


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) == 4 and a[0] == "train":
        print(json.dumps(train(a[1], int(a[2]), a[3])))
    elif len(a) == 3 and a[0] == "encode":
        print(json.dumps(encode(a[1], a[2])))
    else:
        sys.exit(__doc__)
