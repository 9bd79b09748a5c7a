"""Stage 4's code outside the browser (widgets/), in CPython, in Node and in Pyodide under Node: widgets/sampler.py
(the one acceptance rule) gives the right distributions and, unchanged in Pyodide, CPython's results bit for bit; the
worker's Python glue answers as sampler.py does; E6's engine, JavaScript and WebAssembly forwards, tokenizer, bridge,
running sums, timing, roof and explanation agree with torch, the `tokenizers` library and sampler.py; the editable
pair's split is sampler.py's. The Node drivers these tests run are in node/ (each one's first comment line names its
test); glue_exercise.py and sampler_exercise.py hold the calls that CPython and Pyodide both make."""
