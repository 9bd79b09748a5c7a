"""Stage 1, corpus → models (generator/models/, the committed models/): the committed models, tokenizer and card agree
with each other and load; the GPT, the tokenizer and checkpoint loading do what the data stage relies on; a bad
checkpoint, config or tokenizer is refused naming the file and the field; training checks its inputs (lines joined by
their script, a held-out part free of training text, the lesson's prompts in the corpus and whole under the new
tokenizer, a loss better than guessing), writes only into a folder it made, and runs end to end on text the tests
write themselves (never the corpus). The fixtures `tok` and `tiny_family` come from the root conftest."""
