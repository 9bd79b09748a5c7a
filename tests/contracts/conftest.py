"""The rules across stages: one way through (a stage imports nothing of a later one, the pages read c13.json only and
build without torch); one acceptance rule (widgets/sampler.py, called by every run, offline and live) and one speedup
formula per language; the house's layout (file and function sizes, comments that point at files that exist); the model
family as data; bad input at every stage as one line naming the file and the field; the README's first command and
its pointers; and `make bench`'s scripts still running."""
