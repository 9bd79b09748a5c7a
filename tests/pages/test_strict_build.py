"""The strict build is strict: any MkDocs warning fails it (MkDocs' --strict misses warnings under --quiet), with
the warning shown and the previous site left in place, and so do what MkDocs lets through: a page left out of the
nav and a page that loads anything from another origin. Tried on a temporary copy of docs/ and mkdocs.yml."""
import re
import shutil

import pytest

from generator.errors import SettingError
from generator.pages.build import MARKER, build
from tests.sitelib import ROOT, data_file, quiet, read


@pytest.fixture
def project(tmp_path):
    """docs/, overrides/ and mkdocs.yml copied into tmp_path; the hooks named by their absolute path."""
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copytree(ROOT / "overrides", tmp_path / "overrides")
    config = read(ROOT / "mkdocs.yml")
    config, n = re.subn(r"^(hooks:\n  - )(generator/pages/hooks\.py)$", rf"\g<1>{ROOT}/\g<2>", config, flags=re.M)
    assert n == 1, "mkdocs.yml names its hooks differently now: update this fixture"
    (tmp_path / "mkdocs.yml").write_text(config, encoding="utf-8")
    return tmp_path


@pytest.fixture
def old_site(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "index.html").write_text("the previous site", encoding="utf-8")
    (out / MARKER).write_text("a site a build made", encoding="utf-8")
    return out


def refused(project, old_site):
    with pytest.raises(SettingError) as e:
        build(data_file(), out=old_site, log=quiet, config=project / "mkdocs.yml")
    assert read(old_site / "index.html") == "the previous site"
    assert not list(old_site.parent.glob(".out.building-*"))
    return str(e.value)


@pytest.mark.slow("a site built per broken copy of the docs")
def test_the_copy_builds_as_it_is(project, tmp_path):
    out = build(data_file(), out=tmp_path / "fine", log=quiet, config=project / "mkdocs.yml")["site"]
    assert (out / "index.html").is_file()


@pytest.mark.slow("a site built per broken copy of the docs")
def test_a_nav_entry_to_a_missing_page_fails_the_build(project, old_site):
    config = project / "mkdocs.yml"
    text = read(config)
    text, n = re.subn(r"^(  - 数字从哪来: provenance\.md)$", r"\1\n  - 不存在的页: missing.md", text, flags=re.M)
    assert n == 1
    config.write_text(text, encoding="utf-8")
    message = refused(project, old_site)
    assert "WARNING" in message and "missing.md" in message and "nav" in message


@pytest.mark.slow("a site built per broken copy of the docs")
def test_a_dead_markdown_link_fails_the_build(project, old_site):
    page = project / "docs" / "provenance.md"
    page.write_text(read(page) + "\n\n[一个坏链接](no-such-page.md)\n", encoding="utf-8")
    message = refused(project, old_site)
    assert "WARNING" in message and "no-such-page.md" in message and "provenance.md" in message


@pytest.mark.slow("a site built per broken copy of the docs")
def test_a_link_to_an_anchor_no_page_has_fails_the_build(project, old_site):
    page = project / "docs" / "provenance.md"
    page.write_text(read(page) + "\n\n[一个坏锚点](index.md#no-such-section)\n", encoding="utf-8")
    message = refused(project, old_site)
    assert "WARNING" in message and "no-such-section" in message


@pytest.mark.slow("a site built per broken copy of the docs")
def test_a_page_left_out_of_the_nav_fails_the_build(project, old_site):
    (project / "docs" / "orphan.md").write_text("# 没有菜单指向的页\n", encoding="utf-8")
    message = refused(project, old_site)
    assert str(project / "docs" / "orphan.md") in message and "nav" in message and "\n" not in message


@pytest.mark.slow("a site built per broken copy of the docs")
@pytest.mark.parametrize("snippet, loaded", [
    ("![一张图](https://example.org/figure.png)", "<img src> https://example.org/figure.png"),
    ('<script src="//cdn.example.org/x.js"></script>', "<script src> //cdn.example.org/x.js"),
    ('<link rel="stylesheet" href="http://example.org/x.css">', "<link href> http://example.org/x.css"),
    ('<iframe src="https://example.org/demo"></iframe>', "<iframe src> https://example.org/demo"),
    ('<script>fetch("https://example.org/data.json")</script>', "<script> https://example.org/data.json"),
    ('<meta http-equiv="refresh" content="0;url=https://example.org/">',
     "<meta http-equiv=refresh> https://example.org/"),
])
def test_a_page_loading_anything_from_another_origin_fails_the_build(project, old_site, snippet, loaded):
    page = project / "docs" / "provenance.md"
    page.write_text(read(page) + f"\n\n{snippet}\n", encoding="utf-8")
    message = refused(project, old_site)
    assert str(page) in message and loaded in message and "another origin" in message
    assert "\n" not in message


def test_inline_script_and_refresh_addresses_are_found_and_namespaces_are_not():
    from generator.pages.build import Loaded
    parser = Loaded()
    parser.feed("<script type=module>const m = await import('//cdn.example.org/m.js');\n"
                "document.createElementNS('http://www.w3.org/2000/svg', 'svg'); fetch('./local.json')</script>"
                '<script type="application/json">{"home": "https://example.org/"}</script>'
                '<button onclick="new WebSocket(`wss://example.org/s`)">b</button>'
                "<meta http-equiv=Refresh content=\"5; URL='//example.org/next'\">"
                "<meta http-equiv=refresh content=3><meta http-equiv=refresh content='0; https://example.org/bare'>")
    assert parser.found == [("<script>", "//cdn.example.org/m.js"), ("<button onclick>", "wss://example.org/s"),
                            ("<meta http-equiv=refresh>", "//example.org/next"),
                            ("<meta http-equiv=refresh>", "https://example.org/bare")]


@pytest.mark.slow("a site built per broken copy of the docs")
def test_plain_links_to_papers_are_fine(project, tmp_path):
    page = project / "docs" / "provenance.md"
    page.write_text(read(page) + "\n\n[论文](https://arxiv.org/abs/2211.17192) 与 "
                    '<a href="https://arxiv.org/abs/2302.01318">另一篇</a>\n', encoding="utf-8")
    out = build(data_file(), out=tmp_path / "fine", log=quiet, config=project / "mkdocs.yml")["site"]
    assert 'href="https://arxiv.org/abs/2211.17192"' in read(out / "provenance.html")
