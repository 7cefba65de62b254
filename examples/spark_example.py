"""ROUGE of a Spark DataFrame: python examples/spark_example.py (pyspark and a JDK needed)."""
import os
import sys

from pyspark.sql import SparkSession

import rouge_exact as rouge  # pip install rouge-exact (its score_spark needs no evaluate)

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers need numpy and numba
here = os.path.dirname(os.path.abspath(__file__))
spark = SparkSession.builder.master("local[2]").getOrCreate()

df = spark.read.json(os.path.join(here, "pairs.jsonl"))  # columns: prediction, references
result = rouge.score_spark(df, prediction_col="prediction", references_col="references",
                           use_stemmer=True, detailed=True)
print(result["rouge1"]["fmeasure"], result["count"])  # what compute() returns on these rows

per_example = rouge.score_spark(df, use_aggregator=False)  # the rows, with score columns
per_example.select("rouge1_precision", "rouge1_recall", "rouge1_fmeasure").show(3)
spark.stop()
