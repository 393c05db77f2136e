"""A JSON integer longer than Python converts (4,300 digits by default) is a 400 naming
where it is in the body and how long it was, without Python's internals ("use
sys.set_int_max_str_digits()"); an import file says the same at its JSON path."""

from __future__ import annotations

import json
import sys

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from incidents.problems import CaseImportError
from incidents.services import import_case_files
from tests.conftest import VOCAB_FILE
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db

LONG = "9" * 5000
LIMIT = f"{sys.get_int_max_str_digits():,}"


def post(url: str, body: str):
    return APIClient().post(url, body, content_type="application/json")


def test_a_body_names_the_field_holding_the_number():
    body = '{"versions": {"NCCL": "2.18.1"}, "limit": ' + LONG + "}"
    response = post(reverse("api:affected"), body)
    assert response.status_code == 400
    problem = response.json()
    reason = f"a number of 5,000 digits is too long (at most {LIMIT} digits)"
    assert problem["errors"] == [{"parameter": "$.limit", "detail": reason}]
    assert problem["detail"] == f"$.limit: {reason}"
    assert "sys." not in json.dumps(problem)


def test_a_nested_number_and_a_negative_one_are_named_by_their_paths():
    response = post(reverse("api:match"), '{"text": "x", "deep": [1, {"n": -' + LONG + "}]}")
    assert response.status_code == 400
    assert [e["parameter"] for e in response.json()["errors"]] == ["$.deep[1].n"]


def test_an_import_file_names_the_path(tmp_path):
    text = json.dumps(synthetic_case(1)).replace(
        '"accelerator_count": ', '"accelerator_count": ' + LONG + ', "x": ', 1
    )
    (tmp_path / "IL-900001.json").write_text(text, encoding="utf-8")
    with pytest.raises(CaseImportError) as raised:
        import_case_files(paths=[tmp_path], vocab_paths=[VOCAB_FILE], dry_run=True)
    [problem] = raised.value.problems
    assert (problem.path, problem.message) == (
        "$.environment.accelerator_count",
        f"a number of 5,000 digits is too long (at most {LIMIT} digits)",
    )
