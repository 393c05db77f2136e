"""The history page shows a reason's line breaks as line breaks (the admin's reason is a
textarea), the text around them still escaped."""

from __future__ import annotations

import pytest
from django.urls import reverse

from incidents import services
from incidents.models import Case

pytestmark = pytest.mark.django_db


def test_a_reason_with_line_breaks_is_shown_on_its_lines_and_escaped(client, reviewer):
    reason = "Source withdrawn.\nSee <b>the thread</b> & the\n\nreplacement post."
    services.change_status("IL-0430", Case.Status.RETRACTED, user=reviewer, reason=reason)
    page = client.get(reverse("incidents:case-history", args=["IL-0430"])).content.decode()
    assert (
        "Changed by rita · Source withdrawn.<br>See &lt;b&gt;the thread&lt;/b&gt; &amp; the<br><br>"
        "replacement post. · status Retracted"
    ) in page
    assert "<b>the thread</b>" not in page
