"""Stage 3, c13.json → site/ (generator/pages/ and docs/: `make site`, `make preview`, `make serve`), built from
c13.json alone: the build is strict and never loses a site (a warning, a page outside the nav, anything from another
origin stops it; a failed or killed build leaves the previous site); every value, figure, number format and wording on
the built pages is the one the data calls for (blanks, picks, claims, figures, speed kinds, terms defined before use);
the HTML is valid and works offline and under a sub-path; the preview, the server and `generator context` answer bad
input in one line. Most tests read the site the root conftest's `site` builds once per session."""
