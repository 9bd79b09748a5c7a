"""The names of the model family's files and members: plain constants, importable without torch."""

CONFIG, WEIGHTS = "config.json", "model.safetensors"
TARGET, DRAFTS = "ref_baseline", ("c1_dim64", "c1_dim128")
FINGERPRINT = "tokenizer_fingerprint"
