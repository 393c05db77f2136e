"""The admin's URL fields take https:// for a URL typed without a scheme (as Django 6 will),
and no form of ours is built without saying so: Django 5.x warns (RemovedInDjango60Warning)
each time such a URLField is built, as the term form's own fields were, at import and twice
for each term admin page."""

from __future__ import annotations

import warnings
from typing import cast

import pytest
from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import RequestFactory
from django.utils.deprecation import RemovedInDjango60Warning

from incidents.admin import TermAdminForm

pytestmark = pytest.mark.django_db


def test_a_term_url_typed_without_its_scheme_gets_https():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RemovedInDjango60Warning)
        # What the admin does for each term page: a subclass of the form, its fields built again.
        form_class = cast(type[TermAdminForm], type("TermAdminForm", (TermAdminForm,), {}))
    field = form_class.base_fields["source_url"]
    assert isinstance(field, forms.URLField) and hasattr(field, "assume_scheme")
    assert field.assume_scheme == "https"
    assert field.clean("docs.nvidia.com/deploy/xid-errors/") == "https://docs.nvidia.com/deploy/xid-errors/"
    assert field.clean("") is None  # still optional, and stored as NULL


def test_no_admin_form_or_inline_warns_of_its_url_fields():
    request = RequestFactory().get("/admin/")
    request.user = get_user_model()(username="root", is_superuser=True, is_staff=True, is_active=True)
    built = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", RemovedInDjango60Warning)
        for model_admin in admin.site._registry.values():
            model_admin.get_fieldsets(request)
            form = model_admin.get_form(request)
            forms = [
                form,
                *(inline.get_formset(request).form for inline in model_admin.get_inline_instances(request)),
            ]
            built += [
                (name, field.assume_scheme)
                for each in forms
                for name, field in each.base_fields.items()
                if hasattr(field, "assume_scheme")
            ]
    # The URL fields there are (a term's documentation, a case's sources), each assuming https.
    assert sorted(built) == [("source_url", "https"), ("url", "https")]
