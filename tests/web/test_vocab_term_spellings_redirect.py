"""A vocabulary term asked for by another spelling than its URL (the slug or facet in
other letters, its name, a synonym) redirects permanently to its page, as topics and
error codes do; an unknown one is a 404 page that names terms spelt like it and says
nothing of case ids."""

from __future__ import annotations

import pytest

from incidents.models import Term

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("asked", "canonical"),
    [
        ("/vocab/symptom/NCCL-timeout", "/vocab/symptom/nccl-timeout"),
        ("/vocab/symptom/NCCL%20timeout", "/vocab/symptom/nccl-timeout"),
        ("/vocab/accelerator/H100", "/vocab/accelerator/h100"),
        ("/vocab/Accelerator/h100", "/vocab/accelerator/h100"),
        ("/vocab/ROOT-CAUSE/Hardware-Fault", "/vocab/root-cause/hardware-fault"),
    ],
)
def test_another_spelling_redirects_to_the_terms_url(client, asked, canonical):
    response = client.get(asked)
    assert response.status_code == 301
    assert response["Location"] == canonical
    assert client.get(canonical).status_code == 200


def test_a_synonym_redirects_to_its_term(client):
    term = Term.objects.get(facet="symptom", slug="nccl-timeout")
    assert term.synonyms
    response = client.get(f"/vocab/symptom/{term.synonyms[0]}")
    assert response.status_code == 301 and response["Location"] == "/vocab/symptom/nccl-timeout"


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("/vocab/symptom/nccl-timeoutz", "No symptom called “nccl-timeoutz”."),
        ("/vocab/accelerator/H1000", "No accelerator called “H1000”."),
        ("/vocab/nonsense/x", "Nothing lives at <code>/vocab/nonsense/x</code>."),
    ],
)
def test_an_unknown_term_is_a_404_without_the_case_id_hint(client, path, said):
    response = client.get(path)
    assert response.status_code == 404
    html = response.content.decode()
    assert said in html
    assert "Case ids look like" not in html


def test_the_case_404_keeps_the_case_id_hint_for_what_is_not_shaped_as_an_id(client):
    html = client.get("/cases/IL-04x28").content.decode()
    assert "Case ids look like <code>IL-0428</code>." in html
    # IL-9999 is shaped as one: the hint answered no question (a new user's walkthrough).
    html = client.get("/cases/IL-9999").content.decode()
    assert "Nothing lives at <code>/cases/IL-9999</code>. No case has this id." in html
    assert "Case ids look like" not in html
