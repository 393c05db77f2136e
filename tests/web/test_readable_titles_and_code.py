"""Lists show a short headline in bold and the rest of the title in normal weight; inline code
wraps between words or after path separators, never after the hyphen of a short option."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.utils.html import escape

from incidents.models import Case
from incidents.rendering import wrap_inline_code
from incidents.templatetags.incident_tags import headline, markdown_filter, similarity_label

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("title", "head"),
    [
        (
            "BLOOM 176B on 384 A100s: GPUs failed about once a week, one crash cost 7.3 hours",
            "BLOOM 176B on 384 A100s",
        ),
        (
            "Llama 3 405B pre-training on 16,384 H100 GPUs was interrupted 466 times in 54 days, 419 times",
            "Llama 3 405B pre-training on 16,384 H100 GPUs was interrupted 466 times in 54 days",
        ),
        (
            "DeepSpeed save_checkpoint hung forever after the first save because the Trainer called it",
            "DeepSpeed save_checkpoint hung forever",
        ),
        # A colon inside quotes is part of an error message, not a clause break.
        (
            'NCCL failed with "NET/IB : Got completion with error 12", until NCCL_IB_GID_INDEX was set',
            'NCCL failed with "NET/IB : Got completion with error 12"',
        ),
        ("Short title", "Short title"),
    ],
)
def test_the_headline_is_the_first_clause_and_the_rest_completes_the_title(title, head):
    first, rest = headline(title)
    assert first == head
    assert first + rest == title


def test_every_list_entry_shows_its_headline_apart(client):
    page = client.get("/cases/").content.decode()
    cases = list(Case.objects.published().order_by("-published", "-id")[:20])
    for case in cases:
        first, rest = headline(case.title)
        assert f'<span class="headline">{escape(first)}</span>{escape(rest)}</a>' in page, case.id


def test_short_hyphenated_code_words_stay_whole():
    html = wrap_inline_code("<p>Ran <code>srun --gres=gpu:0 -N 2</code></p>")
    assert html == (
        '<p>Ran <code>srun <span class="nowrap">--gres=gpu:0</span> '
        '<span class="nowrap">-N</span> 2</code></p>'
    )


def test_long_code_words_break_only_after_separators():
    html = wrap_inline_code("<code>torch/distributed/distributed_c10d.py:1191</code>")
    assert html == "<code>torch/<wbr>distributed/<wbr>distributed_<wbr>c10d.<wbr>py:<wbr>1191</code>"


def test_code_blocks_are_left_alone_and_escaping_is_kept():
    html = str(markdown_filter("Set `A&B=<x>-y`\n\n    pre --block <code>"))
    assert '<code><span class="nowrap">A&amp;B=&lt;x&gt;-y</span></code>' in html
    assert "<pre><code>pre --block &lt;code&gt;\n</code></pre>" in html


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"label": "strong"}, "very similar"),
        ({"strength": "medium"}, "similar"),
        ({"confidence": "weak"}, "somewhat similar"),
        ({"label": "Very similar"}, "very similar"),
        ({"score": 0.28}, ""),  # a bare score gets no label: "28% similar" read as a weak match
        ({"label": "something else"}, ""),
    ],
)
def test_similar_cases_are_labelled_in_words_from_the_engines_level(fields, words):
    assert similarity_label(SimpleNamespace(**fields)) == words
