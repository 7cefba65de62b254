#!/usr/bin/env python3
"""Lines per module of the metric (rouge_metric.py and the helpers it imports relatively: what
evaluate stages), of the front ends (CLI, its file reader, the Space) and of the tests:
    python benchmarks/size.py            # this checkout
    python benchmarks/size.py 54fc956    # a commit (git show), e.g. before issue 25
Vendored data (rouge155_lexicon.py, rouge_lang_data.py) is counted apart."""
import os
import re
import subprocess
import sys

DATA = {"rouge155_lexicon.py", "rouge_lang_data.py"}


def files(rev):
    """The .py files of a commit, or of this checkout (new files git does not ignore included)."""
    command = ["git", "ls-tree", "-r", "--name-only", rev] if rev else \
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"]
    names = subprocess.run(command, check=True, capture_output=True, text=True).stdout.split()
    return [n for n in names if n.endswith(".py") and (rev or os.path.exists(n))]


def lines(rev, name):
    if rev:
        text = subprocess.run(["git", "show", f"{rev}:{name}"], check=True, capture_output=True,
                              text=True).stdout
    else:
        with open(name, encoding="utf-8") as f:
            text = f.read()
    return text.count("\n")


def staged(rev):
    """rouge_metric.py and the modules it imports relatively (evaluate stages those)."""
    if rev:
        text = subprocess.run(["git", "show", f"{rev}:rouge_metric.py"], check=True,
                              capture_output=True, text=True).stdout
    else:
        with open("rouge_metric.py", encoding="utf-8") as f:
            text = f.read()
    return {"rouge_metric.py"} | {m + ".py" for m in re.findall(r"^from \.(\w+) import", text,
                                                                 flags=re.M)}


def main():
    rev = sys.argv[1] if len(sys.argv) > 1 else None
    names = files(rev)
    metric = staged(rev)
    groups = {"metric": [n for n in names if n in metric and n not in DATA],
              "vendored data": [n for n in names if n in DATA],
              "CLI and its file reader": [n for n in names  # rouge_cli.py, rouge_io.py, their parts
                                          if re.fullmatch(r"rouge_(cli|io)(_\w+)?\.py", n)],
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
