"""`library_summary.source_kind`: what kind of publication each case's first source is."""

from __future__ import annotations

import pytest

from incidents.library_summary import source_kind


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("https://github.com/NVIDIA/nccl/issues/1", "GitHub issue, pull request or repository"),
        ("https://arxiv.org/abs/2410.21680", "paper (arXiv, proceedings)"),
        ("https://aclanthology.org/2025.acl-long.996/", "paper (arXiv, proceedings)"),
        ("https://status.openai.com/incidents/ctrsv3lwd797", "status-page incident report"),
        ("https://www.githubstatus.com/incidents/x", "status-page incident report"),
        # OpenAI's page as Atlassian Statuspage serves it under its own id.
        ("https://jbxzcdv9xc4d.statuspage.io/incidents/y", "status-page incident report"),
        ("https://blog.cloudflare.com/workers-kv", "postmortem, blog post or documentation"),
        # A host that merely ends in a paper site's letters is not one.
        ("https://notarxiv.org/x", "postmortem, blog post or documentation"),
    ],
)
def test_each_first_source_is_filed_by_its_host(url, kind):
    assert source_kind(url) == kind
