"""Count how often each word occurs in a text and print the most common ones."""

import re
import sys
from collections import Counter

WORD = re.compile(r"[^\W\d_]+")


def read_text(path=None):
    """Read the whole input: a file if a path is given, else standard input."""
    if path is None:
        return sys.stdin.read()
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def count_words(text):
    """Return a Counter of the lower-cased words in text."""
    return Counter(match.group().lower() for match in WORD.finditer(text))


def top_words(counts, limit=10):
    """The most frequent words, ties broken alphabetically."""
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:limit]


def main(argv):
    path = argv[1] if len(argv) > 1 else None
    counts = count_words(read_text(path))
    total = sum(counts.values())
    print(f"{total} words, {len(counts)} distinct")
    for word, count in top_words(counts):
        share = 100.0 * count / total
        print(f"{word:<15} {count:>6} {share:6.2f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
