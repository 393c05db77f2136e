"""A body of a media type the endpoint does not read is a 415 that names the one sent and
the ones the endpoint takes (its parsers), so the sender can fix the `Content-Type`."""

from __future__ import annotations


def test_match_names_json_and_plain_text(client):
    response = client.post("/api/match", data="<log>NCCL timeout</log>", content_type="application/xml")
    assert response.status_code == 415
    assert response["Content-Type"] == "application/problem+json"
    assert response.json() == {
        "type": "about:blank",
        "title": "Unsupported Media Type",
        "status": 415,
        "detail": "Unsupported media type 'application/xml': "
        "send the body as application/json or text/plain.",
        "instance": "/api/match",
        "errors": [
            {
                "parameter": "Content-Type",
                "detail": "send the body as application/json or text/plain",
                "value": "application/xml",
                "suggestions": ["application/json", "text/plain"],
            }
        ],
    }


def test_affected_names_json_only(client):
    response = client.post("/api/affected", data="NCCL 2.19.3", content_type="text/plain")
    assert response.status_code == 415
    assert response.json()["errors"] == [
        {
            "parameter": "Content-Type",
            "detail": "send the body as application/json",
            "value": "text/plain",
            "suggestions": ["application/json"],
        }
    ]


def test_a_form_body_with_a_query_limit_is_a_415_not_a_limit_problem(client):
    # `curl --data-binary @job.log '/api/match?limit=2'` sends curl's form type: it was told
    # where a JSON body's limit goes, not that the body's type is the problem.
    response = client.post(
        "/api/match?limit=2", data="NCCL WARN timeout", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 415
    assert response.json()["errors"] == [
        {
            "parameter": "Content-Type",
            "detail": "send the body as application/json or text/plain",
            "value": "application/x-www-form-urlencoded",
            "suggestions": ["application/json", "text/plain"],
        }
    ]


def test_curl_s_form_type_is_told_the_header_to_add(client):
    # `curl --data-binary @train.log /api/match`, the most natural one-liner (walk #9), sends
    # the file as a form: the detail says which header makes it a log.
    response = client.post(
        "/api/match", data="NCCL WARN timeout", content_type="application/x-www-form-urlencoded"
    )
    assert response.json()["detail"] == (
        "Unsupported media type 'application/x-www-form-urlencoded': send the body as application/json"
        " or text/plain (curl sends --data-binary as a form unless told: add -H 'Content-Type: text/plain')."
    )
    # Where no raw text is read, no such hint.
    triage = client.post("/api/triage", data="x", content_type="application/x-www-form-urlencoded").json()
    assert (
        triage["detail"]
        == "Unsupported media type 'application/x-www-form-urlencoded': send the body as application/json."
    )
