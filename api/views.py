"""JSON API views. They parse input, call `incidents.selectors` and shape the output."""

from __future__ import annotations

from django.http import Http404
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from incidents import selectors

from .serializers import CaseSummarySerializer, case_detail_payload


class CaseListView(ListAPIView):
    """`GET /api/cases/`: published cases newest first, paginated summaries.

    Response: `{"count", "next", "previous", "results": [summary, ...]}`; each summary has
    id, title, organization, published (YYYY-MM-DD), topics (slugs), symptom_tags (names),
    root_cause_category (name) and url (the case's API URL).
    """

    serializer_class = CaseSummarySerializer

    def get_queryset(self):
        return selectors.case_list()


class CaseDetailView(APIView):
    """`GET /api/cases/{id}`: the case document (`case.schema.json`) plus `url`, `html_url`.

    404 with a problem-details body when no published or retracted case has that id.
    """

    def get(self, request: Request, case_id: str) -> Response:
        case = selectors.case_by_id(case_id)
        if case is None:
            raise Http404(f"No case with id {case_id!r}.")
        return Response(case_detail_payload(case, request))
