"""Stage 2, models → precomputed/c13.json (generator/data/: `make data`, `make check`, `make measure`): the committed
c13.json is fresh, reproducible and self-consistent; every input (the models, lesson.toml and its prompts, the
generator's code) is checked before any work and recorded by its sha256; the speculative runs with the real models are
exact and counted right, batched or one by one; the same bytes come out under another CPU's kernels; the outputs
(c13.json, the browser files, measured.json) are written together or not at all, a full disk or a kill leaving the
previous files and no process behind; and every setting lesson.toml accepts builds a true page."""
