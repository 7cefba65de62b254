"""Write vectors.jsonl: torchmetrics 1.9.0's own numbers on the sets of common.build_sets(), for
tests/test_torchmetrics.py (which compares the torchmetrics profile with them, without torch).

    .venv/bin/pip install torch==2.13.0
    .venv/bin/pip install --no-deps torchmetrics==1.9.0 lightning-utilities==0.15.3
    .venv/bin/python tests/torchmetrics_vectors/make_vectors.py --nltk-data DIR

torchmetrics cuts rougeLsum's sentences with nltk.sent_tokenize, which reads nltk_data's
punkt_tab. DIR (a folder holding tokenizers/punkt_tab/english/, as nltk.download('punkt_tab')
makes it) goes first on nltk's path; without it, nltk's usual search path. The model found
must be nltk_data's own (its digest is checked against common.OFFICIAL_PUNKT_DIGEST).
``--digest DIR`` prints the digest of DIR's model and stops.

Per example: rouge_score([prediction], [references], **options), each P, R and F a float32
tensor (its mean over one example is itself), written as the float32's 8 hex digits, in
order type by type (P, R, F). Per set: rouge_score over the whole set (torch's float32
mean), which ROUGEScore (updated in two halves) must equal; and the digest of the set's
inputs. Takes about 3 minutes on one core.
"""

import argparse
import json
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tm_cases as common  # noqa: E402


def _punkt_params():
    import nltk
    from nltk.tokenize.punkt import load_punkt_params

    return load_punkt_params(nltk.data.find("tokenizers/punkt_tab/english/"))


def _scores(result: dict, keys) -> str:
    return "".join(common.f32_hex(float(result[f"{key}_{measure}"]))
                   for key in keys for measure in common.MEASURES)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nltk-data", help="a folder holding tokenizers/punkt_tab/english/")
    parser.add_argument("--digest", metavar="DIR", help="print the digest of DIR's Punkt model")
    args = parser.parse_args()
    import nltk

    if args.digest or args.nltk_data:
        nltk.data.path.insert(0, args.digest or args.nltk_data)
    digest = common.model_digest(_punkt_params())
    if args.digest:
        print(digest)
        return
    if digest != common.OFFICIAL_PUNKT_DIGEST:
        sys.exit(f"nltk's Punkt model {nltk.data.find('tokenizers/punkt_tab/english/')} is "
                 f"not nltk_data's (digest {digest}); pass --nltk-data with the official one")
    import torch
    import torchmetrics
    from torchmetrics.functional.text.rouge import rouge_score
    from torchmetrics.text.rouge import ROUGEScore

    if torchmetrics.__version__ != common.TORCHMETRICS_VERSION:
        sys.exit(f"torchmetrics {torchmetrics.__version__}: the vectors are "
                 f"{common.TORCHMETRICS_VERSION}'s")
    lines = [{"torchmetrics": torchmetrics.__version__, "torch": torch.__version__,
              "nltk": nltk.__version__, "punkt_digest": digest,
              "cpu": f"{platform.machine()} {torch.backends.cpu.get_cpu_capability()}",
              "format": "per example: [set, index, float32 hex of P, R, F per type]"}]
    for one in common.build_sets():
        options = dict(one["options"])
        keys = options.setdefault("rouge_keys", common.KEYS)
        predictions, references = one["predictions"], one["references"]
        corpus = rouge_score(predictions, references, **options)
        half = len(predictions) // 2
        module = ROUGEScore(**options)
        module.update(predictions[:half], references[:half])
        module.update(predictions[half:], references[half:])
        by_module = module.compute()
        assert _scores(by_module, keys) == _scores(corpus, keys), one["name"]
        lines.append({"set": one["name"], "options": options, "n": len(predictions),
                      "inputs": common.inputs_digest(one), "corpus": _scores(corpus, keys)})
        for i, (prediction, refs) in enumerate(zip(predictions, references)):
            lines.append([one["name"], i, _scores(rouge_score([prediction], [refs], **options),
                                                   keys)])
        print(f"{one['name']}: {len(predictions)} examples", file=sys.stderr)
    with open(common.VECTORS, "w", encoding="ascii") as f:
        for line in lines:
            f.write(json.dumps(line, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
