"""The metric's options as the command's flags, and --test's: made from the options
schema (rouge_exact.options.OPTIONS, the "cli" ones) and rouge_exact.significance by
``python -m rouge_exact.cli.parser``, which writes this file; tests/test_schema.py checks
that it is what they make now. Written out so that --help and a bad flag import neither
numpy nor the schema: the command answers them at once."""

METRIC_FLAGS = (('rouge_types',
  {'metavar': 'ROUGE_TYPES',
   'help': 'the ROUGE types to score, separated by commas; allowed:\n'
           'a list of rouge<N> (1 <= N <= 1000), rougeL, rougeLsum,\n'
           'rougeW or rougeW-<weight> (1 < weight <= 5, e.g.\n'
           'rougeW-1.5), rougeS<d> or rougeS (d >= 0 tokens may lie\n'
           'between the two words; rougeS: any number), rougeSU<d>\n'
           'or rougeSU (d as in rougeS<d>) (default rouge1, rouge2,\n'
           "rougeL, rougeLsum, or the profile's)"}),
 ('use_stemmer',
  {'action': 'store_true',
   'negatable': True,
   'help': "stem tokens longer than 3 characters: Porter (nltk's, as\n"
           "rouge_score; rouge155: Lin's variant with WordNet's\n"
           "exceptions; py_rouge: py-rouge's, nltk's original Porter\n"
           "with WordNet's exceptions and its own), or the stemmer\n"
           "of lang (default the profile's: True with py_rouge, else\n"
           'False; --no-use-stemmer: off)'}),
 ('tokenizer',
  {'choices': ('default', 'unicode', 'whitespace', 'unicode-v1', 'character-v1'),
   'help': "how text becomes tokens: default (rouge_score's:\n"
           'lowercase runs of [a-z0-9]), unicode (letters and digits\n'
           'of every script), unicode-v1 and character-v1\n'
           "(rouge-score-rs 0.2.1's: Unicode words, UAX #29, or\n"
           'characters; never stemmed), whitespace, or a callable\n'
           "str -> list[str] (default the profile's: default, or\n"
           "rouge155's own)"}),
 ('alpha',
  {'type': 'number',
   'metavar': 'X',
   'help': 'the weight of precision in F = 1 / (alpha / P + (1 -\n'
           "alpha) / R); 0.5 is F1, 1/(1+1.2^2) is pycocoevalcap's\n"
           'beta = 1.2; allowed: None or a number with 0 <= alpha <=\n'
           "1 (default the profile's: 0.5, coco's 1/(1+1.2^2))"}),
 ('multi_ref',
  {'choices': ('max', 'average', 'best', 'max_pr', 'mean_prf'),
   'help': 'several references: max (per type, the reference with\n'
           'the best F; torchmetrics\' accumulate="best"), average\n'
           "(counts pooled, ROUGE-1.5.5's -f A, py-rouge's\n"
           "apply_avg), best (the best recall: -f B, py-rouge's\n"
           'apply_best), max_pr (precision and recall each the\n'
           'maximum over the references, as pycocoevalcap) or\n'
           'mean_prf (precision, recall and F each the mean over the\n'
           'references; torchmetrics\' accumulate="avg") (default\n'
           'max; average with rouge155 or py_rouge; max_pr with\n'
           'coco)'}),
 ('remove_stopwords',
  {'action': 'store_true',
   'negatable': False,
   'help': "drop ROUGE-1.5.5's SMART stopwords (English) before\nscoring"}),
 ('n_samples',
  {'type': 'number',
   'metavar': 'N',
   'help': 'bootstrap samples of the interval (memory grows with it,\n'
           'not with the examples); allowed: an integer with 1 <=\n'
           'n_samples <= 100,000 (default 1000)'}),
 ('confidence',
  {'type': 'number',
   'metavar': 'X',
   'help': 'the confidence level of the bootstrap interval; allowed:\n'
           'a number with 0 < confidence < 1 (default 0.95)'}),
 ('seed',
  {'type': 'number',
   'metavar': 'N',
   'help': "the bootstrap's seed (profile rouge155 seeds as the Perl\n"
           'script does); allowed: an integer with 0 <= seed < 2**64\n'
           '(default 12345)'}),
 ('profile',
  {'choices': ('rouge_score',
               'rouge155',
               'coco',
               'pltrdy',
               'rouge_chinese',
               'torchmetrics',
               'py_rouge'),
   'help': "whose numbers: rouge_score 0.1.2's (evaluate's rouge),\n"
           "the ROUGE-1.5.5 Perl script's (rouge155),\n"
           "pycocoevalcap's ROUGE-L (coco: image captioning's),\n"
           "pltrdy's rouge 1.0.1 (pltrdy: LongBench's), the\n"
           "rouge_chinese package 1.0.3 (LLaMA-Factory's),\n"
           "torchmetrics 1.9.0's ROUGEScore (torchmetrics: float32\n"
           "scores, Punkt sentences for rougeLsum) or py-rouge 1.1's\n"
           '(py_rouge: it stems and keeps 665 characters unless told\n'
           'otherwise) (default rouge_score)'}),
 ('aggregation',
  {'choices': ('macro', 'micro'),
   'help': "macro: the mean of the examples' scores; micro: the\n"
           'scores of the counts summed over all examples (not with\n'
           'multi_ref max_pr or mean_prf, nor profile py_rouge)\n'
           '(default macro)'}),
 ('length_limit_words',
  {'type': 'number',
   'metavar': 'N',
   'help': "keep the first N words of every text (ROUGE-1.5.5's -l;\n"
           'profile py_rouge: py-rouge\'s length_limit_type="words",\n'
           'line by line); allowed: None or an integer >= 1; at most\n'
           'one of the two limits; 0 (no limit) with profile\n'
           'py_rouge only (default no limit)'}),
 ('length_limit_bytes',
  {'type': 'number',
   'metavar': 'N',
   'help': "keep the first N bytes of every text (ROUGE-1.5.5's -b;\n"
           'profile py_rouge: py-rouge\'s length_limit_type="bytes",\n'
           'which counts characters, line by line); allowed: None or\n'
           'an integer >= 1; at most one of the two limits; 0 (no\n'
           'limit) with profile py_rouge only (default no limit;\n'
           "py_rouge's: 665 characters)"}),
 ('split_sentences',
  {'action': 'store_true',
   'negatable': False,
   'help': 'split sentences with a rule-based splitter before\n'
           'rougeLsum and rougeW (which compare sentence by\n'
           'sentence)'}),
 ('lang',
  {'metavar': 'LANG',
   'help': "XL-Sum's multilingual ROUGE of a language: its\n"
           'tokenizer, segmenter and stemmer; with profile pltrdy or\n'
           'rouge_chinese, zh cuts the text with jieba first, as\n'
           'LongBench and LLaMA-Factory do; allowed: None, an ISO\n'
           "639-1 code (zh, hi, ar, ...) or XL-Sum's language name\n"
           '(chinese_simplified, ...); with profile rouge_score and\n'
           'no tokenizer, or zh with profile pltrdy or rouge_chinese\n'
           '(default the tokenizer option applies)'}))

TEST_FLAG = {'choices': ('randomization', 'bootstrap', 'sacrebleu-bootstrap', 'sacrebleu-randomization'),
 'help': 'approximate randomization (default; 10,000 trials), the\n'
         'centred paired bootstrap (1,000), sacrebleu-bootstrap\n'
         "(sacrebleu's rule, 1,000; not calibrated: ~12% false\n"
         "positives at 0.05), or sacrebleu-randomization (sacrebleu's\n"
         'rule, 10,000 trials; ties not counted: not calibrated where\n'
         'few documents differ); --n-samples sets the count'}

DEFAULT_TEST = 'randomization'
