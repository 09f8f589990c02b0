"""A script-only repository (no pyproject, no package) that tests build for themselves.

Three argparse scripts and a README that shows them run, with their output: what the
script-style conversion (issue #4) must turn into validated tools.
"""

from __future__ import annotations

from pathlib import Path

WORDCOUNT = '''\
"""Count the words of a file or of a text given on the command line."""

import argparse
import collections
import os
import sys


def most_common(text, lower=False, top=3):
    """The ``top`` most frequent words of ``text`` with their counts."""
    words = text.lower().split() if lower else text.split()
    return collections.Counter(words).most_common(top)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Print the most common words of a file or a text, one per line."
    )
    parser.add_argument("source", help="a file to read, or the text itself")
    parser.add_argument("--lower", action="store_true", help="fold case before counting")
    parser.add_argument(
        "--top", type=int, default=3, help="how many words to print (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    if os.path.isfile(args.source):
        with open(args.source, encoding="utf-8") as handle:
            text = handle.read()
    else:
        text = args.source
    for word, count in most_common(text, args.lower, args.top):
        print(f"{word} {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''

GREET = '''\
"""Greet someone, several times if asked."""

import argparse


def build_parser():
    parser = argparse.ArgumentParser(description="Print a greeting.")
    parser.add_argument("--name", default="world", help="who to greet")
    parser.add_argument("--times", type=int, default=1, help="how often")
    return parser


if __name__ == "__main__":
    options = build_parser().parse_args()
    if options.times < 1:
        build_parser().error("--times must be at least 1")
    for _ in range(options.times):
        print(f"Hello, {options.name}!")
'''

STATS = '''\
"""Summary statistics of numbers given on the command line."""

import argparse
import statistics

OPERATIONS = {"mean": statistics.mean, "median": statistics.median, "max": max}

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("numbers", nargs="+", type=float, help="the numbers")
    parser.add_argument("--op", choices=["mean", "median", "max"], default="mean")
    parser.add_argument("--precision", "-p", type=int, default=2)
    args = parser.parse_args()
    print(round(OPERATIONS[args.op](args.numbers), args.precision))
'''

README = """\
# wordtools

Small command-line tools.

```console
$ python wordcount.py --lower --top 2 "b a B c b a"
b 3
a 2
```

Greet twice:

```
$ python greet.py --name Ada --times 2
Hello, Ada!
Hello, Ada!
```

```sh
python stats.py 1 2 6 --op median
```
"""


def make_script_repo(root: Path) -> Path:
    """A directory (not a package, no git) of three argparse scripts and a README."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "requirements.txt").write_text("# standard library only\n")
    (root / "wordcount.py").write_text(WORDCOUNT)
    (root / "greet.py").write_text(GREET)
    (root / "stats.py").write_text(STATS)
    (root / "README.md").write_text(README)
    return root
