#!/usr/bin/env python3
"""Lines of the package's modules, folder by folder (rouge_exact/, its subpackages cli, io,
kernels, scorer, text, text/lang), of the thin evaluate script, of the Space and of the tests:
    python benchmarks/size.py            # this checkout
    python benchmarks/size.py 02b7964    # a commit (git show), e.g. 0.6.0
    python benchmarks/size.py --modules  # and each module's lines
Vendored data (rouge155_lexicon.py, text/lang/data.py) is counted apart. A commit before 0.7.0
(flat modules at the root, mapped as the package) is counted as it was laid out: the metric
(rouge_metric.py and the modules it imported relatively, which evaluate staged), the CLI and
its file reader (rouge_cli*.py, rouge_io*.py)."""
import os
import re
import subprocess
import sys

PACKAGE = "rouge_exact"
DATA = {"rouge_exact/text/rouge155_lexicon.py", "rouge_exact/text/lang/data.py",  # 0.7.0 on
        "rouge155_lexicon.py", "rouge_lang_data.py"}  # before


def files(rev):
    """The .py files of a commit, or of this checkout (new files git does not ignore included)."""
    command = ["git", "ls-tree", "-r", "--name-only", rev] if rev else \
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"]
    names = subprocess.run(command, check=True, capture_output=True, text=True).stdout.split()
    return [n for n in names if n.endswith(".py") and (rev or os.path.exists(n))]


def text(rev, name):
    if rev:
        return subprocess.run(["git", "show", f"{rev}:{name}"], check=True, capture_output=True,
                              text=True).stdout
    with open(name, encoding="utf-8") as f:
        return f.read()


def lines(rev, name):
    return text(rev, name).count("\n")


def groups_by_folder(names):
    """0.7.0 on: the package's modules by folder, then the rest."""
    package = [n for n in names if n.startswith(PACKAGE + "/") and n not in DATA]
    folders = sorted({os.path.dirname(n) for n in package})
    groups = {f"{folder}/": [n for n in package if os.path.dirname(n) == folder]
              for folder in folders}
    groups["vendored data"] = [n for n in names if n in DATA]
    groups["thin evaluate script (rouge_metric.py)"] = [n for n in names
                                                        if n == "rouge_metric.py"]
    return package, groups


def groups_flat(rev, names):
    """Before 0.7.0: rouge_metric.py and the modules it imported relatively (evaluate staged
    those), and the CLI with its file reader."""
    staged = {"rouge_metric.py"} | {m + ".py" for m in re.findall(
        r"^from \.(\w+) import", text(rev, "rouge_metric.py"), flags=re.M)}
    groups = {"metric": [n for n in names if n in staged and n not in DATA],
              "vendored data": [n for n in names if n in DATA],
              "CLI and its file reader": [n for n in names
                                          if re.fullmatch(r"rouge_(cli|io)(_\w+)?\.py", n)]}
    return groups["metric"], groups


def main():
    args = [a for a in sys.argv[1:] if a != "--modules"]
    each = "--modules" in sys.argv[1:]
    rev = args[0] if args else None
    os.chdir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the checkout
    names = files(rev)
    if f"{PACKAGE}/__init__.py" in names:
        package, groups = groups_by_folder(names)
        title = f"package {PACKAGE}/ (vendored data apart)"
    else:
        package, groups = groups_flat(rev, names)
        title = "metric (flat modules, before 0.7.0; vendored data apart)"
    groups["Space"] = [n for n in names if n == "app.py" or n.startswith("space/")]
    groups["tests"] = [n for n in names if n.startswith("tests/")]
    counts = {n: lines(rev, n) for members in groups.values() for n in members}
    print(f"{title}: {sum(counts[n] for n in package):,} lines in {len(package)} modules")
    for group, members in groups.items():
        inside = group.startswith(PACKAGE + "/")
        print(f"{'  ' if inside else ''}{group}: {sum(counts[n] for n in members):,} lines"
              + (f" in {len(members)} modules" if inside else ""))
        if each or group == "metric":
            for n in sorted(members):
                print(f"{'    ' if inside else '  '}{n}: {counts[n]:,}")


if __name__ == "__main__":
    main()
