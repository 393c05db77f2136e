"""A job's kind is written with its article by one function (`log_job_kind.a_job`), read by
triage's note and the /match/ page's reading line alike: each once chose it for itself, and
both wrote "a inference job" (tests/search/test_log_job_kind.py reads a real log at both)."""

from __future__ import annotations

from django.template import Context, Template

from incidents.search.log_job_kind import a_job


def test_each_kind_has_its_article():
    assert [a_job("inference"), a_job("training")] == ["an inference job", "a training job"]


def test_the_pages_filter_writes_the_same_words():
    template = Template("{% load incident_tags %}of {{ kind|a_job }}:")
    rendered = [template.render(Context({"kind": kind})) for kind in ("inference", "training")]
    assert rendered == ["of an inference job:", "of a training job:"]
