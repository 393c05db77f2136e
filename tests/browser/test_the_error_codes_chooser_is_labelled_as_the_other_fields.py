"""The error-codes chooser of the case form is labelled as every other field of the form:
its label above the control or to its left, never to its right (a new user's walkthrough
found "Error codes:" after the two lists, where nobody reads it first)."""

from __future__ import annotations

import pytest

from tests.editorial.conftest import make_user

from .conftest import SCREENSHOTS, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PATH = "/admin/incidents/case/IL-0601/change/"


def box(locator) -> dict[str, float]:
    found = locator.bounding_box()
    assert found is not None
    return found


def test_the_error_codes_label_comes_before_its_chooser(open_page):
    make_user("edna", "editor")
    page = open_page(f"/admin/login/?next={PATH}")
    sign_in(page, "edna", PATH)
    row = page.locator(".form-row.field-error_codes")
    chooser = row.locator(".selector")
    chooser.wait_for()  # the admin's script has made the select two lists and a filter
    row.scroll_into_view_if_needed()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    row.screenshot(path=str(SCREENSHOTS / "admin-error-codes-chooser.png"))
    label, control = box(row.locator("label[for=id_error_codes]")), box(chooser)
    above = label["y"] + label["height"] <= control["y"]
    left = label["x"] + label["width"] <= control["x"] and label["y"] < control["y"] + control["height"]
    assert above or left, (label, control)
    # As the field before it in the same form (a text field of the case) is labelled.
    reference = page.locator(".form-row.field-root_cause_description")
    other_label = box(reference.locator("label"))
    other_control = box(reference.locator("textarea"))
    assert (label["x"], other_label["x"]) == (other_label["x"], other_label["x"])
    assert control["x"] == other_control["x"]
