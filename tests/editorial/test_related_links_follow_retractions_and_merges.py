"""A hand-made related link to a case that was retracted or merged away: every published
answer (case page, API case and export, MCP) lists only published cases, a merged one as
the case it was merged into; the stored links stay as the editor made them (a backup keeps
them, an un-retraction brings the link back), and the published export imports on its own."""

from __future__ import annotations

import json
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from incidents import selectors, services
from incidents.backup import export_backup, restore_backup
from incidents.exporting import export_vocabulary
from incidents.models import Case, CaseRelation, Term
from tests.conftest import load_fixture
from tests.mcp.conftest import InMemoryMcp

from .conftest import api

pytestmark = pytest.mark.django_db

# IL-0431's links as the fixture writes them: IL-0428, IL-0432, IL-0433, IL-0434.
STORED = ["IL-0428", "IL-0432", "IL-0433", "IL-0434"]
SHOWN = ["IL-0428", "IL-0432", "IL-0435"]  # IL-0433 retracted, IL-0434 merged into IL-0435


def retract_and_merge(reviewer) -> None:
    services.change_status("IL-0433", Case.Status.RETRACTED, user=reviewer, reason="withdrawn by its authors")
    services.merge_cases("IL-0434", "IL-0435", user=reviewer, reason="the same outage")


def stored_links(case_id: str) -> list[str]:
    return list(
        CaseRelation.objects.filter(source_id=case_id).order_by("position").values_list("target", flat=True)
    )


def shown_for(case_id: str) -> list[str]:
    case = selectors.case_by_id(case_id)
    assert case is not None
    return [other.id for other in selectors.related_cases(case)]


def page_related(client, case_id: str) -> list[str]:
    """Ids of the cases the page lists as linked by an editor, in order."""
    page = client.get(reverse("incidents:case-detail", args=[case_id])).content.decode()
    return re.findall(r'<span class="case-id">(IL-\d+)</span> · <span class="badge linked">', page)


def test_the_page_and_the_api_list_published_cases_and_a_merged_one_as_its_kept_case(client, reviewer):
    retract_and_merge(reviewer)
    assert page_related(client, "IL-0431") == SHOWN
    body = client.get(reverse("api:case-detail", args=["IL-0431"])).json()
    assert body["related"] == SHOWN
    assert (
        client.get(reverse("api:case-detail", args=["IL-0431"]) + "?fields=related").json()["related"]
        == SHOWN
    )
    assert stored_links("IL-0431") == STORED  # nothing the editor linked is lost


def test_a_merged_link_is_listed_once_and_never_as_the_case_itself(reviewer):
    # IL-0431 links IL-0428 and IL-0434; IL-0434 merged into IL-0428 is IL-0428, listed once.
    services.merge_cases("IL-0434", "IL-0428", user=reviewer, reason="the same outage")
    assert shown_for("IL-0431") == ["IL-0428", "IL-0432", "IL-0433"]
    # IL-0433 links IL-0428 and IL-0431; IL-0428 merged into IL-0433 would point at itself.
    services.merge_cases("IL-0428", "IL-0433", user=reviewer, reason="the same outage")
    assert shown_for("IL-0433") == ["IL-0431"]


def test_a_case_published_again_is_linked_again(client, reviewer):
    services.change_status("IL-0433", Case.Status.RETRACTED, user=reviewer, reason="withdrawn by its authors")
    assert "IL-0433" not in client.get(reverse("api:case-detail", args=["IL-0431"])).json()["related"]
    # No workflow step leads out of `retracted`: an editor publishes the document again.
    services.save_case_document(load_fixture("IL-0433"), user=reviewer, reason="republished", where="test")
    assert client.get(reverse("api:case-detail", args=["IL-0431"])).json()["related"] == STORED


def test_an_edit_through_the_write_api_keeps_and_answers_the_stored_links(reviewer):
    retract_and_merge(reviewer)
    client, url = api(reviewer), reverse("api:case-detail", args=["IL-0431"])
    response = client.patch(
        url, {"lessons": ["Check the links."]}, format="json", HTTP_IF_MATCH=client.get(url)["ETag"]
    )
    assert response.status_code == 200, response.json()
    assert response.json()["related"] == STORED  # the case as stored, for the editor who wrote it
    assert stored_links("IL-0431") == STORED
    assert client.get(url).json()["related"] == SHOWN


def test_a_document_put_back_from_get_keeps_the_links_get_hides(reviewer):
    # GET shows SHOWN; a PUT of that document, one field edited, must not drop the link to
    # the retracted case nor turn the merged one into its kept case (found in review).
    retract_and_merge(reviewer)
    client, url = api(reviewer), reverse("api:case-detail", args=["IL-0431"])
    read = client.get(url)
    document = {k: v for k, v in read.json().items() if k in load_fixture("IL-0431")}
    assert document["related"] == SHOWN
    document["lessons"] = ["Check the links."]
    response = client.put(url, document, format="json", HTTP_IF_MATCH=read["ETag"])
    assert response.status_code == 200, response.json()
    assert stored_links("IL-0431") == STORED
    assert client.get(url).json()["related"] == SHOWN


def test_a_link_removed_from_what_get_shows_is_removed_and_a_new_one_added(reviewer):
    retract_and_merge(reviewer)
    client, url = api(reviewer), reverse("api:case-detail", args=["IL-0431"])
    # IL-0435 (standing for the merged IL-0434) and IL-0432 dropped, IL-0441 added: the
    # retracted IL-0433, which GET never showed, stays.
    patched = {"related": ["IL-0428", "IL-0441"]}
    response = client.patch(url, patched, format="json", HTTP_IF_MATCH=client.get(url)["ETag"])
    assert response.status_code == 200, response.json()
    assert stored_links("IL-0431") == ["IL-0428", "IL-0441", "IL-0433"]
    assert client.get(url).json()["related"] == ["IL-0428", "IL-0441"]


def test_the_kept_case_of_a_merged_link_is_not_listed_again_as_similar(client, reviewer):
    url = reverse("api:case-similar", args=["IL-0431"]) + "?limit=5"
    assert client.get(url).json()["results"][0]["id"] == "IL-0479"  # IL-0431's closest computed case
    services.merge_cases("IL-0434", "IL-0479", user=reviewer, reason="the same outage")
    assert page_related(client, "IL-0431") == ["IL-0428", "IL-0432", "IL-0433", "IL-0479"]
    assert "IL-0479" not in [s["id"] for s in client.get(url).json()["results"]]


def test_the_published_export_imports_into_an_empty_database(client, reviewer, tmp_path):
    retract_and_merge(reviewer)
    lines = [json.loads(line) for line in client.get("/api/export").getvalue().decode().splitlines()]
    published = set(Case.objects.published().values_list("id", flat=True))
    assert {related for document in lines for related in document["related"]} <= published
    assert next(d for d in lines if d["id"] == "IL-0431")["related"] == SHOWN
    cases, vocab = tmp_path / "cases", tmp_path / "vocab.json"
    cases.mkdir()
    for document in lines:
        (cases / f"{document['id']}.json").write_text(json.dumps(document), encoding="utf-8")
    export_vocabulary(vocab)

    Case.objects.filter(status=Case.Status.MERGED).delete()
    Case.objects.all().delete()
    Term.objects.all().delete()
    call_command(
        "import_cases", "--dry-run", "--vocab", str(vocab), str(cases), stdout=open("/dev/null", "w")
    )


def test_a_backup_restores_the_links_as_the_editor_made_them(reviewer, tmp_path):
    retract_and_merge(reviewer)
    export_backup(tmp_path)
    backed_up = json.loads((tmp_path / "cases" / "IL-0431.json").read_text(encoding="utf-8"))
    assert backed_up["related"] == STORED

    Case.objects.filter(status=Case.Status.MERGED).delete()
    Case.objects.all().delete()
    Term.objects.all().delete()
    restore_backup(tmp_path)
    assert stored_links("IL-0431") == STORED
    assert shown_for("IL-0431") == SHOWN


# The in-memory MCP server reads from another thread: it sees only committed data.
def test_mcp_get_incident_similar_incidents_and_the_resource_agree(transactional_cases, reviewer):
    retract_and_merge(reviewer)
    mcp = InMemoryMcp()
    assert mcp.ok("get_incident", id="IL-0431")["related"] == SHOWN
    assert [ref["id"] for ref in mcp.ok("similar_incidents", id="IL-0431")["related"]] == SHOWN
    related = "\n## Related cases\n\n" + "".join(f"- incident://{case_id}\n" for case_id in SHOWN)
    assert related in mcp.read("incident://IL-0431")
