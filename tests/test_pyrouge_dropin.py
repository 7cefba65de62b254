"""rouge_exact.pyrouge.Rouge155 against pyrouge 0.1.3 itself running the ROUGE-1.5.5 Perl script:
the same folders, the same calls, byte-identical output and equal output_to_dict().

pyrouge runs ``ROUGE-1.5.5.pl`` as an executable in its ``rouge_dir``: the test makes a folder
with a two-line shell script that runs the installed script (``bash tests/rouge155/setup.sh``)
and its ``data/``; pyrouge's settings file goes to a temporary $HOME. The documents are 12 of
REALSumm's (so that pyrouge's sorted file names, its evaluation IDs and the script's own string
order of them all differ), several with 2-3 references, and edits that pyrouge's conversion and
the script's SEE reader treat in their own ways: a "<" inside a sentence, empty and blank
lines, "\\r\\n" line ends, "|", non-ASCII letters and an empty summary. split_sentences=True needs
nltk's Punkt model, which this machine lacks: both sides get the same untrained Punkt through
``nltk.data.load`` (what pyrouge and this module call), so the test checks everything around it.
"""
import json
import os
import re

import pytest

from conftest import DATA, needed
from oracle import require_oracle, rouge_pl

pyrouge = needed("pyrouge")  # requirements-dev.txt: pyrouge==0.1.3 (it runs the Perl script)
from rouge_exact.pyrouge import Rouge155, perl_options  # noqa: E402

N_DOCS = 12


def _documents():
    """[(system text, [model texts])] for N_DOCS of REALSumm's documents."""
    rows = [json.loads(line) for line in open(DATA, encoding="utf-8")]
    by_doc = {}
    for row in rows:
        by_doc.setdefault(row["doc"], []).append(row)
    out = []
    for doc in sorted(by_doc)[:N_DOCS]:
        first, *others = by_doc[doc]
        extra = [o["prediction"] for o in others[:len(out) % 3]]  # 0, 1 or 2 more references
        out.append([first["prediction"], [first["references"][0]] + extra])
    out[1][0] += "\nits <b>bold</b> claim is cut at the first tag ."
    out[2][0] = out[2][0].replace("\n", "\r\n")
    out[3][1][0] = "\n\n" + out[3][1][0] + "\n \n\t\n"
    out[4][0] += "\nA | B | C went home . The Mr. Smith case closed ."
    out[5][1][0] += "\nLe café naïve était fermé ; Straße 42 ."
    out[6][0] = ""
    out[7][0] = out[7][0].replace(" . ", " .  ") + "\n"
    return out


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """(system folder, model folder) in pyrouge's usual layout: doc.ID.txt, doc.X.ID.txt."""
    base = tmp_path_factory.mktemp("pyrouge_docs")
    systems, models = base / "systems", base / "models"
    systems.mkdir()
    models.mkdir()
    for i, (system, refs) in enumerate(_documents()):
        (systems / f"doc.{i}.txt").write_bytes(system.encode("utf-8"))
        for j, ref in enumerate(refs):
            (models / f"doc.{'ABC'[j]}.{i}.txt").write_bytes(ref.encode("utf-8"))
    (systems / "notes.md").write_text("not a summary: no pattern matches it\n")
    return str(systems), str(models)


@pytest.fixture(scope="module")
def rouge_home(tmp_path_factory):
    """A ROUGE home for pyrouge: ROUGE-1.5.5.pl (runs the installed script) and data/."""
    require_oracle()
    script = rouge_pl()
    home = tmp_path_factory.mktemp("rouge_home")
    (home / "ROUGE-1.5.5.pl").write_text(f'#!/bin/sh\nexec perl "{script}" "$@"\n')
    (home / "ROUGE-1.5.5.pl").chmod(0o755)
    (home / "data").symlink_to(os.path.join(os.path.dirname(script), "data"))
    return str(home)


@pytest.fixture
def pyrouge_env(monkeypatch, tmp_path):
    """pyrouge writes ~/.pyrouge/settings.ini: a temporary HOME."""
    monkeypatch.setenv("HOME", str(tmp_path))


@pytest.fixture
def untrained_punkt(monkeypatch):
    """nltk.data.load's Punkt for English, untrained (this machine has no punkt_tab data)."""
    import nltk.data
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    real = nltk.data.load
    monkeypatch.setattr(nltk.data, "load", lambda path, *a, **k: PunktSentenceTokenizer()
                        if path == "tokenizers/punkt/english.pickle" else real(path, *a, **k))


def _pair(folders, rouge_home, rouge_args=None, system_pattern=r"doc.(\d+).txt"):
    """(pyrouge's Rouge155 with Perl, ours) set up alike."""
    theirs = pyrouge.Rouge155(rouge_dir=rouge_home, rouge_args=rouge_args)
    ours = Rouge155(rouge_args=rouge_args)
    for r in (theirs, ours):
        r.system_dir, r.model_dir = folders
        r.system_filename_pattern = system_pattern
        r.model_filename_pattern = "doc.[A-Z].#ID#.txt"
    return theirs, ours


def _same(theirs_output, ours_output):
    assert ours_output == theirs_output
    assert Rouge155.output_to_dict(ours_output) == \
        pyrouge.Rouge155.output_to_dict(None, theirs_output)


@pytest.mark.parametrize("split_sentences", [False, True])
def test_default_options(folders, rouge_home, pyrouge_env, untrained_punkt, split_sentences):
    """pyrouge's own options: -c 95 -2 -1 -U -r 1000 -n 4 -w 1.2 -a -m."""
    theirs, ours = _pair(folders, rouge_home)
    expected = theirs.convert_and_evaluate(split_sentences=split_sentences)
    got = ours.convert_and_evaluate(split_sentences=split_sentences)
    assert "1 ROUGE-SU* Average_F:" in got and len(ours.output_to_dict(got)) == 8 * 9
    _same(expected, got)


@pytest.mark.parametrize("rouge_args", [
    # files2rouge's and many papers' options (-e: pyrouge passes no data folder with them)
    '"-e {data} -c 95 -r 1000 -n 2 -a"',
    # per-evaluation lines, corpus counts, best reference, other weights and intervals
    "-e {data} -n 2 -w 1.5 -2 4 -u -a -d -t 1 -f B -p 0.3 -r 200 -c 90",
    "-e {data} -a -n 1 -x -2 0 -U -s -l 30 -d -t 2",
])
def test_rouge_args(folders, rouge_home, pyrouge_env, rouge_args):
    theirs, ours = _pair(folders, rouge_home, rouge_args.format(data=rouge_home + "/data"))
    _same(theirs.convert_and_evaluate(), ours.convert_and_evaluate())


def test_evaluate_on_converted_files_with_a_system_id(folders, rouge_home, pyrouge_env,
                                                      tmp_path):
    """evaluate() reads files already in SEE format (pyrouge's own conversion) and prints the
    system ID given; rouge_args given to the call."""
    converted = []
    for folder, name in zip(folders, ("see_systems", "see_models")):
        pyrouge.Rouge155.convert_summaries_to_rouge_format(folder, str(tmp_path / name))
        converted.append(str(tmp_path / name))
    theirs, ours = _pair(converted, rouge_home)
    args = f"-e {rouge_home}/data -n 2 -w 1.2 -2 4 -u -a -d"
    _same(theirs.evaluate(system_id=7, rouge_args=args), ours.evaluate(system_id=7, rouge_args=args))
    # the conversion itself, file by file
    for name in os.listdir(folders[0]):
        text = open(os.path.join(folders[0], name), encoding="utf-8", newline="").read()
        assert Rouge155.convert_text_to_rouge_format(text) == \
            pyrouge.Rouge155.convert_text_to_rouge_format(text)


def test_split_sentences_without_punkt_data_says_what_to_install(folders, monkeypatch):
    import nltk.data

    def missing(path, *args, **kwargs):
        raise LookupError("Resource 'punkt_tab' not found.")

    monkeypatch.setattr(nltk.data, "load", missing)
    ours = Rouge155()
    ours.system_dir, ours.model_dir = folders
    ours.system_filename_pattern, ours.model_filename_pattern = r"doc.(\d+).txt", "doc.[A-Z].#ID#.txt"
    with pytest.raises(LookupError, match=r"nltk.download\('punkt_tab'\)"):
        ours.convert_and_evaluate(split_sentences=True)


@pytest.mark.parametrize("args, message", [
    ("-n 2", "-a is missing"),
    ("-a -v", "-v (prints the script's debugging lines) is not supported"),
    ("-a -3 HM", "-3 (scores Basic Elements (BE), not text) is not supported"),
    ("-a -z SPL", "-z (reads a list of files"),
    ("-a -q", "-q is not an option of ROUGE-1.5.5.pl"),
    ("-a 1", "got '1' where an option was expected"),
    ("-a -c 100", "-c got '100'; allowed: a confidence level in percent, 0 < c < 100"),
    ("-a -w 1", "-w got '1'; allowed: a ROUGE-W weight 1 < w <= 5"),
    ("-a -f C", "-f got 'C'; allowed: A or B"),
    ("-a -t 3", "-t got '3'; allowed: 0, 1 or 2"),
    ("-a -l 10 -b 20", "got both -l and -b"),
    ("-a -n", "-n got '-m'"),  # pyrouge's -m follows: the script would take it so too
])
def test_options_it_does_not_map_are_refused_by_name(folders, args, message):
    ours = Rouge155(rouge_args=args)
    ours.system_dir, ours.model_dir = folders
    ours.system_filename_pattern, ours.model_filename_pattern = r"doc.(\d+).txt", "doc.[A-Z].#ID#.txt"
    with pytest.raises(ValueError, match="rouge_args: ") as error:
        ours.convert_and_evaluate()
    assert message in str(error.value)


def test_perl_getopts_bundles_and_attached_values():
    """Getopt::Std's forms: -am is -a -m, -n4 is -n 4, -2 -1 takes "-1" as the value."""
    assert perl_options("-am -n4 -2 -1 -U") == perl_options(["-a", "-m", "-n", "4", "-2", "-1",
                                                             "-U"])
    assert [label for _, label in perl_options("-a -n 2 -2 -1 -U -w 1.20").types()] == \
        ["ROUGE-1", "ROUGE-2", "ROUGE-L", "ROUGE-W-1.20", "ROUGE-S*", "ROUGE-SU*"]


def test_bad_folders_and_patterns(folders, tmp_path):
    ours = Rouge155()
    with pytest.raises(ValueError, match="system_dir: the path .* does not exist"):
        ours.system_dir = str(tmp_path / "missing")
    ours.system_dir, ours.model_dir = folders
    ours.model_filename_pattern = "doc.[A-Z].#ID#.txt"
    ours.system_filename_pattern = r"doc.\d+.txt"
    with pytest.raises(ValueError, match="has no group"):
        ours.convert_and_evaluate()
    ours.system_filename_pattern = r"summary.(\d+).txt"
    with pytest.raises(ValueError, match="no file of .* matches"):
        ours.convert_and_evaluate()
    ours.system_filename_pattern, ours.model_filename_pattern = r"doc.(\d+).txt", "ref.#ID#.txt"
    with pytest.raises(ValueError, match="no model summary for the system summary with ID 0"):
        ours.convert_and_evaluate()


def test_model_files_of_an_id_are_pyroguess(tmp_path):
    """ModelFiles (an index of the names' words, then the regex) finds for each ID what
    pyrouge's own per-ID scan finds, on patterns that quantify, skip, group, escape or
    enclose the ID (where the index must not be used)."""
    from rouge_exact.pyrouge import ModelFiles

    names = ["doc.A.1.txt", "doc.A.10.txt", "doc.B.1.txt", "doc.A.1.txt.bak", "doc_A_1.txt",
             "xdoc.A.1.txt", "doc.A.01.txt", "m.A.1.txt", "doc.a.1.txt", "doc.A.11.txt",
             "doc.A.1", "doc.A.", "doc.A.111.txt", "doc.A.x.txt", "doc.A.1x.txt", "doc.]1.txt",
             "1", "doc.A.2.txt", "doc.C.1.1.txt", "doc.A.abc_1.txt"]
    for name in names:
        (tmp_path / name).write_text("x")
    patterns = ["doc.[A-Z].#ID#.txt", "doc.[A-Z].#ID#", r"doc\.[A-Z]\.#ID#\.txt", "doc.A.#ID#*",
                "doc.[A-Z].#ID#+.txt", "(doc|m).[A-Z].#ID#.txt", "doc.[A-Z].(#ID#)?.txt",
                "doc.A.[#ID#]", r"doc.A.\#ID#", "doc.A.{#ID#}", ".*#ID#", "doc.[^B].#ID#.txt",
                "doc.[]A].#ID#", "#ID#", "doc.A.#ID#?", "doc.A.#ID#{2}", "doc.[A-Z].#ID#.#ID#"]
    found = 0
    for pattern in patterns:
        files = ModelFiles(sorted(names), pattern)
        for doc_id in ["1", "10", "01", "1.1", "A", "x", "abc_1", "2"]:
            try:
                expected = sorted(pyrouge.Rouge155._Rouge155__get_model_filenames_for_id(
                    doc_id, str(tmp_path), pattern))
            except re.error:  # "\\1": a group reference, in both
                with pytest.raises(re.error):
                    files.of(doc_id)
                continue
            except Exception as error:  # pyrouge: "Could not find any model summaries"
                assert "Could not find any model summaries" in str(error)
                expected = []
            assert files.of(doc_id) == expected, (pattern, doc_id)
            found += len(expected)
    assert found > 100
