"""The admin's history of a case, which shows each entry's changes in the public history
page's table, fits a 1280-pixel window with those tables' captions left to screen readers:
the admin has no `sr-only` rule, so each caption stood as a banner, and a long summary
pushed the table past the window's right edge (an editor's walkthrough)."""

from __future__ import annotations

import pytest

from incidents import services
from incidents.models import Case
from tests.editorial.conftest import make_user

from .conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_admin_history_needs_no_sideways_scrolling(open_page):
    editor, reviewer = make_user("edna", "editor"), make_user("rita", "reviewer")
    Case.objects.filter(id="IL-0428").update(status=Case.Status.DRAFT)
    services.change_status("IL-0428", Case.Status.IN_REVIEW, user=editor)
    services.change_status("IL-0428", Case.Status.PUBLISHED, user=reviewer)
    path = "/admin/incidents/case/IL-0428/history/"
    page = open_page(f"/admin/login/?next={path}")
    sign_in(page, "edna", path)
    assert page.evaluate("document.documentElement.scrollWidth") == 1280
    table = page.locator("#change-history").bounding_box()
    assert table is not None and table["x"] + table["width"] <= 1280
    caption = page.get_by_text("Fields changed in version 3").bounding_box()
    assert caption is not None and caption["width"] <= 1
    assert page.locator("#change-history > tbody > tr").first.locator("td").nth(4).inner_text() == "Published"
