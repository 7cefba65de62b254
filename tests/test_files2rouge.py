"""``rouge-exact --files2rouge`` against the ROUGE-1.5.5 Perl script run as files2rouge runs it.

files2rouge (pltrdy/files2rouge, 2.1.0, head d3d09c8 of 2021-07-08) cannot be installed here
(git only), so its steps are redone below from its source, each cited:

* files2rouge/utils.py ``split_files``: both files read in text mode, equal line counts, each
  line ``strip()``-ed, an empty reference (then summary) line refused or, with -ir (-is),
  skipped; line i written to ``m.A.i.txt`` / ``s.i.txt`` as
  ``(" %s\\n" % eos).join(line.split(" %s" % eos))``, without a final newline;
* files2rouge/files2rouge.py ``run``: patterns ``s.(\\d+).txt`` and ``m.[A-Z].#ID#.txt``; options
  ``-c 95 -r 1000 -n N -a`` (+ ``-x`` with -nol) or --args, after ``-e DATA``; prints
  "Preparing documents... K line(s) ignored", "Running ROUGE...", the output (``print``: one more
  newline; the same into --saveto) and "Elapsed time: %.3f seconds";
* pltrdy/pyrouge (the fork files2rouge installs) ``convert_and_evaluate``: pyrouge 0.1.3's
  conversion and configuration (the same code: used from pyrouge itself here), then
  ``ROUGE-1.5.5.pl OPTIONS [-m] CONFIG``, -m when stemming (files2rouge: unless -nm).
"""
import json
import os
import re
import subprocess

import pytest

from conftest import DATA, needed
from oracle import require_oracle, rouge_pl

pyrouge = needed("pyrouge")  # its conversion and configuration writer (requirements-dev.txt)
from rouge_exact.cli import main as cli  # noqa: E402

ELAPSED = re.compile(r"Elapsed time: \d+\.\d{3} seconds\n\Z")


def files2rouge_perl(tmp_path, references, summaries, options, eos=".", stemming=True,
                     ignore_empty_reference=False, ignore_empty_summary=False):
    """files2rouge's stdout (its elapsed time left out) and its --saveto text, by its steps."""
    require_oracle()
    ref_lines = open(references, encoding="utf-8").readlines()
    sum_lines = open(summaries, encoding="utf-8").readlines()
    assert len(ref_lines) == len(sum_lines)
    root = tmp_path / "files2rouge"
    system, model = root / "system", root / "model"
    system.mkdir(parents=True)
    model.mkdir()
    ignored = []
    for i, (mod_line, sys_line) in enumerate(zip(ref_lines, sum_lines)):
        mod_line, sys_line = mod_line.strip(), sys_line.strip()
        if mod_line == "":
            assert ignore_empty_reference
            ignored.append(i + 1)
            continue
        if sys_line == "":
            assert ignore_empty_summary
            ignored.append(i + 1)
            continue
        for path, line in ((model / f"m.A.{i}.txt", mod_line), (system / f"s.{i}.txt", sys_line)):
            with open(path, "w", encoding="utf-8") as f:
                print((" %s\n" % eos).join(line.split(" %s" % eos)), end="", file=f)
    see_system, see_model, config = root / "see_system", root / "see_model", root / "rouge.xml"
    pyrouge.Rouge155.convert_summaries_to_rouge_format(str(system), str(see_system))
    pyrouge.Rouge155.convert_summaries_to_rouge_format(str(model), str(see_model))
    pyrouge.Rouge155.write_config_static(str(see_system), r"s.(\d+).txt", str(see_model),
                                         "m.[A-Z].#ID#.txt", str(config), system_id=1)
    script = rouge_pl()
    data = os.path.join(os.path.dirname(script), "data")
    command = ["perl", script] + f"-e {data} {options}".split() + (["-m"] if stemming else []) \
        + [str(config)]
    output = subprocess.run(command, capture_output=True, check=True).stdout.decode("utf-8")
    stdout = (f"Preparing documents... {len(ignored)} line(s) ignored\nRunning ROUGE...\n"
              f"{output}\n")
    return stdout, output + "\n"


def ours(argv, capsys):
    """The command's stdout, its elapsed time checked and left out."""
    assert cli.main(["--files2rouge", *argv]) == 0
    out = capsys.readouterr().out
    assert ELAPSED.search(out), out[-200:]
    return ELAPSED.sub("", out)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """(references.txt, summaries.txt): 13 lines (so that s.10.txt sorts before s.2.txt), one
    sample a line, sentences ending in " .", with an empty reference line and an empty
    summary line, a "<" inside a sentence, trailing blanks and "\\r\\n" line ends."""
    rows = [json.loads(line) for line in open(DATA, encoding="utf-8")][:13]
    refs = [" ".join(r["references"][0].split("\n")) for r in rows]
    sums = [" ".join(r["prediction"].split("\n")) for r in rows]
    refs[4] = "   "
    sums[7] = ""
    sums[2] += " it was <i>the</i> best . "
    refs[9] = "\t" + refs[9] + "   "
    base = tmp_path_factory.mktemp("files2rouge_inputs")
    references, summaries = base / "references.txt", base / "summaries.txt"
    references.write_bytes(("\n".join(refs) + "\n").encode("utf-8"))
    summaries.write_bytes(("\r\n".join(sums) + "\r\n").encode("utf-8"))
    return str(references), str(summaries)


def test_default_options(files, tmp_path, capsys):
    """files2rouge's defaults: -c 95 -r 1000 -n 2 -a, stemming."""
    expected, _ = files2rouge_perl(tmp_path, *files, "-c 95 -r 1000 -n 2 -a",
                                   ignore_empty_reference=True, ignore_empty_summary=True)
    assert "1 ROUGE-L Average_F:" in expected
    assert ours([*files, "-ir", "-is"], capsys) == expected


def test_no_stemming_other_n_no_rouge_l_and_another_eos(tmp_path, capsys):
    """-nm -n 3 -nol and --eos "<q>" (the CNN/DailyMail outputs' sentence mark, which the
    script's SEE reader cuts off at its "<")."""
    rows = [json.loads(line) for line in open(DATA, encoding="utf-8")][20:31]
    references, summaries = tmp_path / "refs.txt", tmp_path / "sums.txt"
    references.write_text("".join(r["references"][0].replace(" .\n", " . <q>") + "\n"
                                  for r in rows), encoding="utf-8")
    summaries.write_text("".join(r["prediction"].replace(" .\n", " . <q>") + "\n"
                                 for r in rows), encoding="utf-8")
    expected, _ = files2rouge_perl(tmp_path, references, summaries, "-c 95 -r 1000 -n 3 -a -x",
                                   eos="<q>", stemming=False)
    assert ours([str(references), str(summaries), "-nm", "-n", "3", "-nol", "-e", "<q>"],
                capsys) == expected


def test_args_and_saveto(files, tmp_path, capsys):
    """--args replaces files2rouge's options (per-evaluation lines, ROUGE-W, -f B ...) and
    --saveto gets the script's output and print()'s newline."""
    options = "-c 90 -r 300 -n 1 -w 1.2 -2 4 -u -f B -a -d"
    expected, saved = files2rouge_perl(tmp_path, *files, options, ignore_empty_reference=True,
                                       ignore_empty_summary=True)
    saveto = tmp_path / "scores.txt"
    assert ours([*files, f"--args={options}", "-ir", "-is", "-s", str(saveto)],
                capsys) == expected
    assert saveto.read_text(encoding="utf-8") == saved


@pytest.mark.parametrize("argv, message", [
    (["-m"], "--stemming is deprecated; turn stemming off with -nm/--no_stemming"),
    (["-n", "3", "--args=-a -n 3"], "-n/--rouge_n: should not be set with -a/--args"),
    (["-nol", "--args=-a -n 3"], "-nol/--no_rouge_l: should not be set with -a/--args"),
    ([], "Empty reference at line 5. Use `--ignore_empty_reference` to ignore it"),
    (["-ir"], "Empty summary at line 8. Use `--ignore_empty_summary` to ignore it"),
    (["-ir", "-is", "--args=-a -v"], "-v (prints the script's debugging lines) is not supported"),
])
def test_files2rouge_errors_are_one_line(files, capsys, argv, message):
    assert cli.main(["--files2rouge", *files, *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rouge-exact: error: ") and message in err and err.count("\n") == 1


def test_line_counts_must_match(files, tmp_path, capsys):
    short = tmp_path / "short.txt"
    short.write_text("one line .\n", encoding="utf-8")
    assert cli.main(["--files2rouge", files[0], str(short)]) == 2
    assert "Model and System line counts must match, 13 != 1" in capsys.readouterr().err
