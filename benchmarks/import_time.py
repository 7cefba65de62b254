#!/usr/bin/env python3
"""What `import rouge_exact` costs, in fresh processes, against the imports it does without.

    python benchmarks/import_time.py            # 7 fresh processes per import, medians

Each figure is the import's cumulative time as `python -X importtime` reports it (the
interpreter's own start-up excluded), the median of the runs, taken in turns, after one
untimed run of each that writes the bytecode (PYTHONDONTWRITEBYTECODE is unset). Run it with the
project's venv (evaluate and rouge-score installed: the comparison rows)."""
import argparse
import os
import statistics
import subprocess
import sys

IMPORTS = {
    "import rouge_exact (its public names are imported at their first use)": "rouge_exact",
    "rouge_exact.compute's first use (imports rouge_exact.api: numpy, the scorer)":
        "rouge_exact.api",
    "from rouge_score import rouge_scorer": "rouge_score.rouge_scorer",
    "import evaluate (what evaluate.load needs first)": "evaluate",
}


def cumulative_us(module: str) -> int:
    """The import's cumulative microseconds in a fresh interpreter."""
    # bytecode written and read, as an installed package has it (an environment may turn it off)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"],
                          capture_output=True, text=True, check=True, cwd=os.path.expanduser("~"),
                          env=env)
    for line in proc.stderr.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) == 3 and parts[2] == module:
            return int(parts[1])
    raise RuntimeError(f"{module}: not in -X importtime's report")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    times = {label: [] for label in IMPORTS}
    for module in IMPORTS.values():  # untimed: the bytecode written
        cumulative_us(module)
    for _ in range(args.runs):
        for label, module in IMPORTS.items():
            times[label].append(cumulative_us(module))
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} CPUs, load average {load:.2f}; medians of {args.runs} fresh "
          "processes (python -X importtime, cumulative)")
    for label, values in times.items():
        print(f"{statistics.median(values) / 1e6:7.3f} s  {label}")


if __name__ == "__main__":
    main()
