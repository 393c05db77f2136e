"""Every `aria-describedby` of the proposal form names an element of the page.

Django gives a field with help text `aria-describedby="id_<field>_helptext"`, but the form
printed its help as `id="id_<field>-help"`: the reference pointed at nothing, so screen
readers never read the help (a new user's walkthrough). The help now carries Django's own id.
"""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db

# The new-case form, the correction form a case page links, and both refused (with errors).
FORMS = [
    ("get", {}),
    ("get", {"case_id": "IL-0428"}),
    ("post", {"kind": "new"}),
    ("post", {"kind": "correction", "case_id": "IL-0428"}),
]


def described_by_ids(html: str) -> list[str]:
    return [ref for value in re.findall(r'aria-describedby="([^"]*)"', html) for ref in value.split()]


@pytest.mark.parametrize(("method", "data"), FORMS)
def test_every_described_by_id_exists(client, method, data):
    html = getattr(client, method)("/propose/", data).content.decode()
    refs = described_by_ids(html)
    # The fields with help text: case_id, title, organization, published, source_urls, contact.
    assert len(refs) >= 6
    ids = set(re.findall(r'\bid="([^"]+)"', html))
    assert [ref for ref in refs if ref not in ids] == []


def test_the_help_is_what_the_field_points_at(client):
    html = client.get("/propose/").content.decode()
    help_id = re.search(r'<input[^>]*name="title"[^>]*aria-describedby="([^"]+)"', html).group(1)
    assert help_id == "id_title_helptext"
    assert re.search(rf'<p class="help" id="{help_id}">New case \(needed\): what broke', html)
