"""Nothing is lost: evaluate's distributed mode (num_process / process_id / experiment_id and
a shared cache directory, as torch.distributed and accelerate users run it) gives exactly the
single-process result, count included; concurrent compute() calls from threads too."""
import json
import os
import subprocess
import sys
import textwrap
import threading
import uuid

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow  # the full tier only: evaluate's multi-process path in subprocesses

WORKER = textwrap.dedent("""
    import json, sys, warnings
    import evaluate
    warnings.simplefilter("ignore")
    repo, rank, world, experiment, cache_dir, data_path = sys.argv[1:7]
    rank, world = int(rank), int(world)
    rows = [json.loads(line) for line in open(data_path, encoding="utf-8")]
    metric = evaluate.load(repo + "/rouge_metric.py", num_process=world, process_id=rank,
                           experiment_id=experiment, cache_dir=cache_dir)
    mine = rows[rank::world]  # each process scores its own shard, in uneven batches
    for start in range(0, len(mine), 7 + rank):
        batch = mine[start:start + 7 + rank]
        metric.add_batch(predictions=[r["prediction"] for r in batch],
                         references=[r["references"] for r in batch])
    out = metric.compute(rouge_types=["rouge1", "rougeL", "rougeSU4"], use_stemmer=True,
                         detailed=True, seed=11)
    print(json.dumps(out))
""")


@pytest.mark.parametrize("world", [2, 4])
def test_distributed_equals_single_process(metric, realsumm, tmp_path, world):
    rows = realsumm[:203]  # not a multiple of the process count
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    script = tmp_path / "worker.py"
    script.write_text(WORKER, encoding="utf-8")
    experiment = uuid.uuid4().hex
    procs = [subprocess.Popen([sys.executable, str(script), str(REPO), str(rank), str(world),
                               experiment, str(tmp_path / "cache"), str(data)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=dict(os.environ))
             for rank in range(world)]
    outputs = [p.communicate(timeout=600) for p in procs]
    for p, (_out, err) in zip(procs, outputs):
        assert p.returncode == 0, err[-3000:]
    results = [out.strip().splitlines()[-1] for out, _ in outputs]
    assert results[1:] == ["null"] * (world - 1)  # only process 0 computes
    distributed = json.loads(results[0])
    # the single-process reference, in the original order (aggregation does not depend on
    # the order the shards arrive in)
    single = metric.compute(predictions=[r["prediction"] for r in rows],
                            references=[r["references"] for r in rows],
                            rouge_types=["rouge1", "rougeL", "rougeSU4"], use_stemmer=True,
                            detailed=True, seed=11)
    assert distributed["count"] == single["count"] == 203
    assert distributed == json.loads(json.dumps(single))


def test_concurrent_threads_equal_sequential(metric, realsumm):
    chunks = [realsumm[i * 150:(i + 1) * 150] for i in range(4)]

    def score(rows):
        return metric.compute(predictions=[r["prediction"] for r in rows],
                              references=[r["references"] for r in rows],
                              rouge_types=["rouge1", "rouge2", "rougeLsum"], use_stemmer=True,
                              detailed=True)

    sequential = [score(rows) for rows in chunks]
    results = [None] * 4

    def run(i):
        results[i] = score(chunks[i])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert results == sequential
