# The jobs of this project. `make site` and `make test` set up everything they need on a fresh machine.
PY := .venv/bin/python
STAMP := .stamps

.PHONY: site serve preview bench test test-fast models data check train setup measure

site: setup                  ## the main job: build the lesson site into site/ (regenerates stale data first)
	$(PY) -m generator build

serve: setup                 ## serve the built site on http://127.0.0.1:8000/ for offline reading
	$(PY) -m generator serve

preview: setup               ## for authors: the lesson on http://127.0.0.1:8000/, rebuilt and reloaded on every edit
	$(PY) -m generator preview

bench: setup $(STAMP)/chromium ## benchmarks (figures, not tests): site build against plain mkdocs, and weight; Pyodide, runs and bytes in Chromium; E6's model costs and speedups in Node and Chromium, its sampler bridge and this machine's roofline
	$(PY) benchmarks/bench_site.py --weight
	$(PY) benchmarks/bench_browser.py
	node benchmarks/bench_e6.mjs
	node benchmarks/bench_e6_sampler.mjs
	node benchmarks/bench_pyodide_pass.mjs
	node benchmarks/bench_roof.mjs
	$(PY) benchmarks/bench_e6_browser.py

test: setup $(STAMP)/chromium ## the whole test suite (browser tests drive Debian's Chromium)
	$(PY) -m pytest

test-fast: setup $(STAMP)/chromium ## the fast tier, before a commit: every stage, every test not marked slow (about 3 minutes on 2 cores)
	$(PY) -m pytest -m "not slow"

models: setup                ## load, validate and report the committed models
	$(PY) -m generator models

data: setup                  ## gen_c13_precomputed: recompute precomputed/c13.json from the models
	$(PY) -m generator data

measure: setup               ## time the real models on this machine into precomputed/measured.json (a few minutes): QUICK=1 REPEATS=n
	$(PY) -m generator measure $(if $(QUICK),--quick) $(if $(REPEATS),--repeats $(REPEATS))

check: setup                 ## exit 1 when precomputed/c13.json no longer matches its inputs or was edited by hand
	$(PY) -m generator check

train: setup                 ## retrain tokenizer + three models (tens of minutes): CORPUS=file STEPS=n OUT=dir FORCE=1
	$(PY) -m generator train $(if $(CORPUS),--corpus $(CORPUS)) $(if $(STEPS),--steps $(STEPS)) $(if $(OUT),--out $(OUT)) $(if $(FORCE),--force)

setup: $(STAMP)/python $(STAMP)/node

$(STAMP)/python: pyproject.toml
	python3 -m venv .venv
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@mkdir -p $(STAMP) && touch $@

$(STAMP)/node: package.json package-lock.json
	npm ci --no-audit --no-fund
	@mkdir -p $(STAMP) && touch $@

# Debian's Chromium for the browser tests (Playwright drives /usr/bin/chromium; it never downloads a browser),
# with CJK fonts so that pages are laid out with real glyphs, as readers see them.
$(STAMP)/chromium:
	@{ command -v chromium && fc-list :lang=zh | grep -q .; } >/dev/null 2>&1 || \
		{ apt-get update && apt-get install -y chromium fonts-noto-cjk; }
	@mkdir -p $(STAMP) && touch $@
