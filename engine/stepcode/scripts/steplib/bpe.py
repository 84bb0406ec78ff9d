"""A byte-pair-encoding (BPE) tokenizer written for the step code: trained on a text column,
saved as tokenizer.json, read back by the PyTorch text model's training, evaluation and
inference. Standard library only.

Words are runs of letters and digits or single other characters (whitespace separates); each word
is split into characters plus the end-of-word marker, and the most frequent adjacent pair is
merged, again and again, until the vocabulary reaches its size. Encoding applies the merges in
the order they were learnt. Ids 0-3 are <pad>, <unk>, <cls>, <sep>.
"""
import collections
import json
import re

WORD = re.compile(r"\w+|[^\w\s]", re.UNICODE)
END = "</w>"
SPECIAL = ["<pad>", "<unk>", "<cls>", "<sep>"]
PAD, UNK, CLS, SEP = 0, 1, 2, 3


def words(text, lowercase=True):
    text = "" if text is None else str(text)
    return WORD.findall(text.lower() if lowercase else text)


def train(texts, vocab_size=8000, min_frequency=2, lowercase=True):
    """(vocabulary {token: id}, merges [(a, b)]) learnt from texts. Pair counts are kept up to
    date word by word, so a merge costs the words it touches, not the corpus."""
    counts = collections.Counter()
    for t in texts:
        counts.update(words(t, lowercase))
    seqs = [list(w) + [END] for w in counts]
    freq = list(counts.values())
    symbols = set()
    for w in seqs:
        symbols.update(w)
    vocab = list(SPECIAL) + sorted(symbols)
    known = set(vocab)
    pairs = collections.Counter()
    where = collections.defaultdict(set)  # pair -> indices of the words holding it
    for k, w in enumerate(seqs):
        for pr in zip(w, w[1:]):
            pairs[pr] += freq[k]
            where[pr].add(k)
    merges = []
    while len(vocab) < vocab_size and pairs:
        (a, b), n = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))
        if n < min_frequency:
            break
        merges.append((a, b))
        if a + b not in known:  # "abc" may come of ("ab", "c") in one word and ("a", "bc") in another
            known.add(a + b)
            vocab.append(a + b)
        for k in list(where.pop((a, b), ())):
            w, f = seqs[k], freq[k]
            for pr in zip(w, w[1:]):  # forget the word's old pairs
                pairs[pr] -= f
                if pairs[pr] <= 0:
                    del pairs[pr]
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            seqs[k] = out
            for pr in zip(out, out[1:]):
                pairs[pr] += f
                where[pr].add(k)
        pairs.pop((a, b), None)
    return {tok: i for i, tok in enumerate(vocab)}, merges


class Tokenizer(object):
    """Encodes text with a trained vocabulary and merges."""

    def __init__(self, vocab, merges, lowercase=True):
        self.vocab, self.lowercase = vocab, lowercase
        self.ranks = {tuple(m): i for i, m in enumerate(merges)}
        self.merges = [tuple(m) for m in merges]
        self.cache = {}

    def word_tokens(self, word):
        hit = self.cache.get(word)
        if hit is not None:
            return hit
        parts = list(word) + [END]
        while len(parts) > 1:
            ranked = [(self.ranks.get((a, b)), i) for i, (a, b) in enumerate(zip(parts, parts[1:])) if (a, b) in self.ranks]
            if not ranked:
                break
            _, i = min(ranked)
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
        if len(self.cache) < 100000:
            self.cache[word] = parts
        return parts

    def encode(self, text, max_length=None):
        """Token ids of text: <cls>, the tokens, <sep>, cut to max_length and padded with
        <pad> to it when given."""
        ids = [CLS]
        for w in words(text, self.lowercase):
            ids.extend(self.vocab.get(t, UNK) for t in self.word_tokens(w))
        ids.append(SEP)
        if max_length:
            ids = ids[:max_length]
            if ids[-1] != SEP:
                ids[-1] = SEP
            ids += [PAD] * (max_length - len(ids))
        return ids

    def to_json(self):
        return {"type": "bpe", "version": 1, "lowercase": self.lowercase, "special_tokens": SPECIAL,
                "vocab": self.vocab, "merges": [list(m) for m in self.merges]}

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f)


def load(path):
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    if d.get("type") != "bpe":
        raise SystemExit("%s is not a tokenizer of TokenizerTraining (type %r)" % (path, d.get("type")))
    return Tokenizer(d["vocab"], d["merges"], d.get("lowercase", True))
