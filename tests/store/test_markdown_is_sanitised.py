"""Raw HTML and javascript: links in a case never reach the page as markup."""

from __future__ import annotations

import pytest

from incidents.rendering import render_markdown
from incidents.services import import_case_files
from tests.factories import synthetic_case, write_cases

HOSTILE = (
    "Intro <script>alert('x')</script> and <img src=x onerror=alert(1)>.\n\n"
    '[click](javascript:alert(1)) <a href="javascript:alert(2)" onclick="evil()">raw</a>\n\n'
    '<iframe src="https://evil.example"></iframe> `<b>code</b>`'
)


def test_render_markdown_strips_scripts_handlers_and_javascript_urls():
    html = render_markdown(HOSTILE)
    for forbidden in ("<script", "alert('x')", "onerror", "onclick", "javascript:", "<iframe", "<img"):
        assert forbidden not in html
    assert "<code>&lt;b&gt;code&lt;/b&gt;</code>" in html


def test_render_markdown_keeps_tables_and_safe_links():
    html = render_markdown("| a | b |\n|---|---|\n| 1 | 2 |\n\n[docs](https://example.org/x)")
    assert "<table>" in html and "<td>1</td>" in html
    assert '<a href="https://example.org/x" rel="nofollow noopener">docs</a>' in html


@pytest.mark.django_db
def test_hostile_case_text_is_inert_on_the_page(client, tmp_path):
    document = synthetic_case(77, summary=HOSTILE, remediation=[HOSTILE], checks=[HOSTILE])
    document["symptoms"]["description"] = HOSTILE
    import_case_files(paths=write_cases(tmp_path, [document]))
    html = client.get("/cases/IL-900077").content.decode()
    assert "<script>alert" not in html
    assert "javascript:" not in html
    assert "onerror" not in html
    assert "<iframe" not in html
