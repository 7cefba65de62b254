"""Text to token ids: ``tokenizers`` (the tokenizer profiles, the byte scanner's batches, the
stem memos, the sentence splitter), ``peers`` (the tokenizers of coco-caption, pltrdy,
rouge-chinese and torchmetrics), ``py_rouge`` (py-rouge's tokenizer, stemmer and length
limits), ``punkt`` (nltk's English Punkt), ``lang`` (XL-Sum's multilingual ROUGE) and
``text.rouge155_lexicon`` (vendored data)."""
