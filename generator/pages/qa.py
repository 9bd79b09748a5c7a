"""The lesson's Q&A record (docs/qa/C13-L3.md), read into question/answer pairs for the page."""
from pathlib import Path

from markupsafe import Markup
from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[2]
QA_RECORD = ROOT / "docs" / "qa" / "C13-L3.md"


def read_qa(path):
    """The lesson's Q&A record: entries are '## ' headings (the question) followed by Markdown (the answer)."""
    path = Path(path)
    if not path.is_file():
        raise PluginError(f"{path}: the Q&A record is missing (an empty record says so in words)")
    entries, current = [], None
    in_comment = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if "<!--" in line:
            in_comment = "-->" not in line
            continue
        if in_comment:
            in_comment = "-->" not in line
            continue
        if line.startswith("## "):
            current = {"question": line[3:].strip(), "answer": []}
            entries.append(current)
        elif current is not None:
            current["answer"].append(line)
    return [{"question": e["question"], "answer": Markup("\n".join(e["answer"]).strip())} for e in entries]
