"""The offline server: a port outside 0…65535 is a one-line error, and a path no file can have (%00) is answered
400 without a traceback. Each server here listens on 127.0.0.1 on a free port and is stopped by its test."""
import http.client
import threading

import pytest

from generator import cli
from generator.errors import SettingError
from generator.pages.build import MARKER
from generator.pages.serve import make_server


@pytest.fixture
def tiny_site(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>the site</p>", encoding="utf-8")
    (site / MARKER).write_text("made by a build", encoding="utf-8")
    return site


@pytest.mark.parametrize("port", ["70000", "-1", "65536"])
def test_a_port_outside_the_range_is_a_one_line_error(tiny_site, port, capsys):
    assert cli.main(["serve", "--site", str(tiny_site), f"--port={port}"]) == 2
    err = capsys.readouterr().err.strip()
    assert f"--port {port}" in err and "65535" in err and "\n" not in err
    with pytest.raises(SettingError):
        make_server(tiny_site, port=int(port))


@pytest.fixture
def server(tiny_site):
    server, _ = make_server(tiny_site, port=0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


def get(server, path):
    conn = http.client.HTTPConnection(*server.server_address[:2], timeout=10)
    try:
        conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


@pytest.mark.parametrize("path", ["/%00", "/index.html%00", "/%00/index.html", "/%ed%a0%80"])
def test_a_path_no_file_can_have_is_answered_400_without_a_traceback(server, path, capsys):
    assert server.server_address[0] == "127.0.0.1"
    status, _ = get(server, path)
    assert status == 400
    assert "Traceback" not in capsys.readouterr().err
    assert get(server, "/index.html")[0] == 200, "the server stopped answering"


def test_serving_leaves_the_built_site_as_it_is(server, tiny_site):
    before = {p.name: p.read_bytes() for p in tiny_site.iterdir()}
    assert get(server, "/")[0] == 200 and get(server, "/missing.html")[0] == 404
    assert {p.name: p.read_bytes() for p in tiny_site.iterdir()} == before and (tiny_site / MARKER).is_file()
