"""The trimmed standard library the site serves (generator/pages/stdlib.py): its bytes are the same at every build,
it holds exactly the kept list, the kept list covers what Pyodide's start-up, the sampler and the glue import now
(recorded again in Pyodide under Node), and the site holds both archives and says the trimmed one's size."""
import io
import json
import subprocess
import zipfile

import pytest

from generator.pages.stdlib import KEPT, STAMP, kept_members, trim, trimmed_lock, trimmed_stdlib
from tests.conftest import ROOT

PYODIDE = ROOT / "node_modules" / "pyodide"
FULL = PYODIDE / "python_stdlib.zip"
RECORDER = ROOT / "tests" / "widgets" / "node" / "record_stdlib.mjs"  # beside the other Node drivers


def test_the_trimmed_zip_is_deterministic_sorted_and_holds_exactly_the_kept_list(tmp_path):
    kept = kept_members()
    first = trim(FULL, kept)
    assert trim(FULL, list(reversed(kept))) == first
    copy = tmp_path / "python_stdlib.zip"
    copy.write_bytes(FULL.read_bytes())  # another file (another mtime), the same bytes
    assert trimmed_stdlib(copy) == first
    with zipfile.ZipFile(io.BytesIO(first)) as z, zipfile.ZipFile(FULL) as full:
        infos = z.infolist()
        assert [i.filename for i in infos] == sorted(kept)
        assert {i.date_time for i in infos} == {STAMP}
        for info in infos:
            if not info.is_dir():
                assert z.read(info) == full.read(info.filename), info.filename
                assert info.compress_type == zipfile.ZIP_DEFLATED
    assert len(first) < FULL.stat().st_size / 3


def test_a_kept_member_the_archive_lacks_fails_naming_it():
    with pytest.raises(ValueError, match="no_such_module.py"):
        trim(FULL, kept_members() + ["no_such_module.py"])


@pytest.mark.slow("Pyodide started in Node to record its imports")
def test_the_kept_list_covers_what_pyodide_imports_now():
    """The recorder run again (Pyodide's start-up, sampler.py, the worker's and E6's glue, exercised in Node)."""
    out = subprocess.run(["node", str(RECORDER)], capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    recorded = [line for line in out.stdout.splitlines() if line]
    assert "encodings/utf_8.py" in recorded and "json/decoder.py" in recorded, recorded
    missing = sorted(set(recorded) - set(kept_members()))
    assert not missing, f"imported but not kept: {missing}; record again: node {RECORDER.relative_to(ROOT)} --write"
    assert KEPT.read_text(encoding="utf-8").startswith("# ")


def test_the_lock_file_keeps_its_info_and_no_package():
    lock = json.loads(trimmed_lock(PYODIDE / "pyodide-lock.json"))
    assert lock == {"info": json.loads((PYODIDE / "pyodide-lock.json").read_text())["info"], "packages": {}}


def test_the_site_serves_the_trimmed_archive_keeps_the_full_one_and_states_the_size(site):
    vendor = site / "assets" / "vendor" / "pyodide"
    assert (vendor / "python_stdlib.zip").read_bytes() == trimmed_stdlib(FULL)
    assert (vendor / "full" / "python_stdlib.zip").read_bytes() == FULL.read_bytes()
    assert json.loads((vendor / "pyodide-lock.json").read_text())["packages"] == {}
    html = (site / "index.html").read_text(encoding="utf-8")
    payload = json.loads(html.split('id="c13-widget-data">', 1)[1].split("</script>", 1)[0])
    assert payload["pyodide_bytes"]["python_stdlib.zip"] == (vendor / "python_stdlib.zip").stat().st_size
    assert payload["pyodide_bytes"]["pyodide-lock.json"] == (vendor / "pyodide-lock.json").stat().st_size
