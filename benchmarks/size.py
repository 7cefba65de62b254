#!/usr/bin/env python3
"""Lines per module of the metric (the files evaluate stages), of the Space and of the tests:
    python benchmarks/size.py            # this checkout
    python benchmarks/size.py 54fc956    # a commit (git show), e.g. before issue 25
Vendored data (rouge155_lexicon.py, rouge_lang_data.py) is counted apart."""
import subprocess
import sys

DATA = {"rouge155_lexicon.py", "rouge_lang_data.py"}


def files(rev):
    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev or "HEAD"], check=True,
                           capture_output=True, text=True).stdout.split()
    return [n for n in names if n.endswith(".py")]


def lines(rev, name):
    if rev:
        text = subprocess.run(["git", "show", f"{rev}:{name}"], check=True, capture_output=True,
                              text=True).stdout
    else:
        with open(name, encoding="utf-8") as f:
            text = f.read()
    return text.count("\n")


def main():
    rev = sys.argv[1] if len(sys.argv) > 1 else None
    names = files(rev)
    groups = {"metric": [n for n in names if "/" not in n and n.startswith("rouge_")
                         and n not in DATA and n != "rouge_cli.py"],
              "vendored data": [n for n in names if n in DATA],
              "CLI": [n for n in names if n == "rouge_cli.py"],
              "Space": [n for n in names if n == "app.py" or n.startswith("space/")],
              "tests": [n for n in names if n.startswith("tests/")]}
    for group, members in groups.items():
        counts = {n: lines(rev, n) for n in sorted(members)}
        print(f"{group}: {sum(counts.values()):,} lines")
        if group == "metric":
            for n, c in counts.items():
                print(f"  {n}: {c:,}")


if __name__ == "__main__":
    main()
