"""The README's first command, run in a fresh clone, ends with a built site.

It clones the committed HEAD (what CI and a new reader get), so uncommitted changes are not part of it.
The clone makes its own .venv and node_modules; pip and npm may use their caches, as on any machine.
"""
import re
import subprocess

import pytest

from tests.conftest import ROOT


def readme_commands():
    block = re.search(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S).group(1)
    return [line.split("#")[0].strip() for line in block.splitlines() if line.split("#")[0].strip()]


def test_readme_opens_with_the_build_the_test_and_the_preview_command():
    commands = readme_commands()
    assert commands[2:] == ["make preview"] and len(commands) == 3
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci  # CI runs the README's test command


@pytest.mark.slow("a fresh clone set up and built")
def test_first_readme_command_in_a_fresh_clone_builds_the_site(tmp_path):
    clone = tmp_path / "main"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    run = subprocess.run(["bash", "-c", readme_commands()[0]], cwd=clone, capture_output=True, text=True,
                         timeout=900)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    assert "is fresh" in run.stdout  # the committed data matched the committed inputs: nothing regenerated
    index = clone / "site" / "index.html"
    assert index.is_file() and (clone / "site" / "provenance.html").is_file()
    html = index.read_text(encoding="utf-8")
    experiments = (clone / "docs" / "index.md").read_text(encoding="utf-8").count('<section class="c13-exp"')
    assert experiments and 'id="c13-widget-data"' in html and html.count('class="c13-exp"') == experiments
    assert (clone / "site" / "assets" / "vendor" / "pyodide" / "pyodide.asm.wasm").is_file()
