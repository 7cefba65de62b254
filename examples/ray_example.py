"""ROUGE of a Ray Dataset: python examples/ray_example.py (ray[data] needed)."""
import os

import ray

import rouge_exact as rouge  # pip install rouge-exact (its score_ray needs no evaluate)

here = os.path.dirname(os.path.abspath(__file__))
ray.init(num_cpus=2, include_dashboard=False)

dataset = ray.data.read_json(os.path.join(here, "pairs.jsonl"))  # prediction, references
result = rouge.score_ray(dataset, prediction_col="prediction", references_col="references",
                         use_stemmer=True, detailed=True)
print(result["rouge1"]["fmeasure"], result["count"])  # what compute() returns on these rows

per_example = rouge.score_ray(dataset, use_aggregator=False)  # the rows, with score columns
print(per_example.to_pandas()[["rouge1_precision", "rouge1_recall", "rouge1_fmeasure"]].head(3))
ray.shutdown()
