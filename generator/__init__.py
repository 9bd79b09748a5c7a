"""The C13 lesson-3 generator: models, precomputed data and the site."""
