"""The case form fits a 1280-pixel window: a source's title was the admin's ten-row,
610-pixel text area, which pushed the Sources rows (and their delete boxes) 300 pixels past
the window's right edge, so an editor scrolled sideways to remove a source (an editor's
walkthrough of create, edit and publish)."""

from __future__ import annotations

import pytest

from tests.editorial.conftest import make_user

from .conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("path", ["/admin/incidents/case/add/", "/admin/incidents/case/IL-0428/change/"])
def test_the_case_form_needs_no_sideways_scrolling(open_page, path):
    make_user("edna", "editor")
    page = open_page(f"/admin/login/?next={path}")
    sign_in(page, "edna", path)
    assert page.evaluate("document.documentElement.scrollWidth") == 1280
    delete = page.locator("#sources-0 td.delete").bounding_box()
    assert delete is not None and delete["x"] + delete["width"] <= 1280
