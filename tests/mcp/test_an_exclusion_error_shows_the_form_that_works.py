"""An `exclude` sent in another form is answered with the form that works (walk #17).

`{"exclude": "training-hang"}` was told `exclude must be a list such as ["training-hang"]`;
sent so, it was refused in turn for want of a facet, and `{"exclude": {"topic": [...]}}` got
the same wrong example. Each answer now shows 'facet:value' items, and a bare value is given
the facets whose term it names.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

FACETS = "topic, symptom, root_cause, component, organization, year, accelerator, workload, scale, error_code"


def test_a_string_is_shown_as_a_list_of_facet_value_items(mcp):
    assert mcp.error("search_incidents", query="hang", exclude="training-hang") == (
        "Invalid arguments: exclude must be a list of 'facet:value' items such as"
        f' ["<facet>:training-hang"], <facet> one of {FACETS} (got "training-hang").'
    )


def test_an_object_of_facets_is_shown_as_its_items(mcp):
    message = mcp.error("search_incidents", query="hang", exclude={"topic": ["training-hang"]})
    assert 'such as ["topic:training-hang"]' in message


def test_a_bare_value_is_given_the_facets_that_name_it(mcp):
    assert mcp.error("search_incidents", query="hang", exclude=["training-hang"]) == (
        f"exclude: each item is 'facet:value' with a facet out of {FACETS} (got 'training-hang';"
        " send 'topic:training-hang' or 'symptom:training-hang')."
    )
    assert mcp.error("list_incidents", exclude=["nccl"]).endswith("(got 'nccl'; send 'component:nccl').")
    assert mcp.error("search_incidents", query="hang", exclude=["zzz"]).endswith("(got 'zzz').")


def test_the_form_shown_works(mcp):
    every = mcp.ok("search_incidents", query="hang")["total"]
    assert 0 < mcp.ok("search_incidents", query="hang", exclude=["topic:training-hang"])["total"] < every
