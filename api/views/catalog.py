"""`/api/topics/`, `/api/topics/{slug}`, `/api/vocab/`, `/api/vocab/{facet}`, `/api/stats`."""

from __future__ import annotations

from django.http import HttpResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from incidents import selectors
from incidents.models import VOCAB_FACETS, Facet
from incidents.selectors.spelling import Typed, spelling_key

from .. import schema, shapes
from ..errors import ParameterError, UnknownResource
from ..http import ApiView, conditional_on_store, moved_permanently, redirect_to_canonical
from ..params import reject_all
from ..query import Integer, QueryParams
from ..serializers import (
    StatsSerializer,
    TermListSerializer,
    TopicListSerializer,
    TopicOverviewSerializer,
    VocabularySerializer,
)

MAX_TOP = 20
MAX_LATEST = 50
TOPIC_QUERY = QueryParams(
    [
        Integer(
            "top",
            "Terms per frequency list, {minimum} to {maximum} (default {default}).",
            default=5,
            minimum=1,
            maximum=MAX_TOP,
        ),
        Integer(
            "latest",
            "Latest cases, {minimum} to {maximum} (default {default}).",
            default=5,
            minimum=1,
            maximum=MAX_LATEST,
        ),
    ]
)
NO_PARAMETERS = "A query parameter was given; this endpoint takes none."


class TopicListView(ApiView):
    """`GET /api/topics/`: `selectors.vocabulary("topic")` (`TopicListSerializer`)."""

    @extend_schema(
        operation_id="topics_list",
        summary="Topics",
        description="Every topic with its description and number of published cases.",
        parameters=schema.CONDITIONAL_HEADERS,
        responses={
            200: OpenApiResponse(TopicListSerializer, "Every topic."),
            304: schema.NOT_MODIFIED,
            **schema.error_responses(bad_request=NO_PARAMETERS),
        },
    )
    def get(self, request: Request) -> Response:
        reject_all(request.query_params)
        return self.answer(request)

    @conditional_on_store(keep=True)
    def answer(self, request: Request) -> Response:
        topics = selectors.vocabulary(Facet.TOPIC)
        return Response(
            TopicListSerializer({"results": [shapes.topic_entry(t, request) for t in topics]}).data
        )


class TopicDetailView(ApiView):
    """`GET /api/topics/{slug}`: `selectors.topic_overview` (`TopicOverviewSerializer`);
    404 for unknown slugs."""

    @extend_schema(
        operation_id="topics_retrieve",
        summary="One topic's overview",
        description=(
            "A topic's description and case count, the symptoms, root causes and components "
            "most frequent among its published cases (with counts), and its latest cases."
        ),
        parameters=[
            OpenApiParameter(
                "slug",
                OpenApiTypes.STR,
                OpenApiParameter.PATH,
                pattern=schema.SLUG_PATTERN,
                description="Topic slug; its name or a synonym redirects (301) to the slug.",
            ),
            *TOPIC_QUERY.openapi(),
            *schema.CONDITIONAL_HEADERS,
        ],
        responses={
            200: OpenApiResponse(TopicOverviewSerializer, "The topic's overview."),
            301: OpenApiResponse(description="A topic's name or synonym: `Location` is its slug's URL."),
            304: schema.NOT_MODIFIED,
            **schema.error_responses(
                bad_request="Unknown parameter or value out of range.",
                not_found="No topic has this slug, name or synonym (the closest are named); a former "
                "topic, now a workload (`training`), says so and where its cases are.",
            ),
        },
    )
    def get(self, request: Request, slug: str) -> Response:
        values = TOPIC_QUERY.parse(request.query_params)
        top, latest = values["top"], values["latest"]
        if len(slug) > 120:
            raise unknown_term(slug, selectors.TopicLookup())  # no topic is named so: no lookup
        return self.answer(request, slug=slug, top=top, latest=latest)

    @conditional_on_store(keep=True, exists=lambda request, slug, **kwargs: selectors.topic_exists(slug))
    def answer(self, request: Request, *, slug: str, top: int, latest: int) -> Response | HttpResponse:
        lookup = selectors.find_topic(slug)
        if lookup.canonical_slug is not None:
            return redirect_to_canonical(request, slug, lookup.canonical_slug)
        if lookup.workload is not None:
            raise former_topic(request, slug, lookup)
        if lookup.term is None:
            raise unknown_term(slug, lookup)
        overview = selectors.topic_overview(lookup.term, top=top, latest=latest)
        assert overview is not None
        return Response(TopicOverviewSerializer(shapes.topic_overview(overview, request)).data)


def unknown_term(slug: str, lookup: selectors.TermLookup) -> UnknownResource:
    """The 404 of a slug naming no topic (or no term of `lookup`'s facet: an error code's
    too), in the words the page and MCP use (`TermLookup.problem`): its sentence as `detail`,
    and `slug` in `errors` with the closest terms (every one when none is close and they
    are few) as `suggestions`."""
    problem = lookup.problem(slug)
    suggestions = [choice.value for choice in problem.suggestions]
    return UnknownResource(problem.message(), [ParameterError("slug", problem.detail, slug, suggestions)])


def former_topic(request: Request, slug: str, lookup: selectors.TopicLookup) -> UnknownResource:
    """The 404 of a former topic, now a workload (`training`, `inference`), saying so and
    where its cases are (`TopicLookup.moved`), as MCP get_topic says it and the page answers
    it (a redirect to the workload's page): no API resource is a workload, so no redirect."""
    assert lookup.workload is not None
    cases = request.build_absolute_uri(f"{reverse('api:case-list')}?workload={lookup.workload.slug}")
    return UnknownResource(
        f"{lookup.moved(slug)}: its cases are at {cases}.",
        [ParameterError("slug", "is a workload now, not a topic", slug)],
    )


class VocabularyView(ApiView):
    """`GET /api/vocab/`: `selectors.vocabulary()` grouped by facet (`VocabularySerializer`)."""

    @extend_schema(
        operation_id="vocab_list",
        summary="The whole vocabulary",
        description=(
            f"Every term of each vocabulary facet ({', '.join(VOCAB_FACETS)}) with slug, "
            "name, description, synonyms (for "
            "organizations and accelerators: the aliases import and filters accept) and "
            "number of published cases; accelerators also with vendor and family. A term's "
            "slug is the value of its facet's filter on /api/cases/; an accelerator family's "
            "slug finds the cases of all its models."
        ),
        parameters=schema.CONDITIONAL_HEADERS,
        responses={
            200: OpenApiResponse(VocabularySerializer, "Every term by facet."),
            304: schema.NOT_MODIFIED,
            **schema.error_responses(bad_request=NO_PARAMETERS),
        },
    )
    def get(self, request: Request) -> Response:
        reject_all(request.query_params)
        return self.answer(request)

    @conditional_on_store(keep=True)
    def answer(self, request: Request) -> Response:
        return Response(VocabularySerializer(shapes.vocabulary(selectors.vocabulary(), request)).data)


def facet_elsewhere(request: Request, facet: str) -> HttpResponse:
    """`/api/vocab/{facet}` for a facet it does not serve: the error codes, a facet of the list
    filters (`error_code`) and of MCP `vocab`, redirect (301) to their own endpoint,
    `/api/codes/`; a facet spelt otherwise (`root-cause`) to its spelling; any other name is a
    404 naming the facets and suggesting those spelt close to it (`symptoms` -> `symptom`),
    as an unknown filter value is. It was a 404 for `error_code` too, without suggestions."""
    key = spelling_key(facet)
    if key in ("error code", "error codes", "codes"):
        return moved_permanently(request, reverse("api:code-list"))
    for name in VOCAB_FACETS:
        if spelling_key(name) == key:
            return redirect_to_canonical(request, facet, str(name))
    names = ", ".join(VOCAB_FACETS)
    typed = Typed(facet)
    near = sorted((-typed.closeness(str(f)), str(f)) for f in VOCAB_FACETS if typed.closeness(str(f)) > 0)
    raise UnknownResource(
        f"No facet {facet!r}; facets: {names} (error codes: /api/codes/).",
        [ParameterError("facet", "unknown facet", facet, [name for _, name in near])],
    )


class VocabularyFacetView(ApiView):
    """`GET /api/vocab/{facet}`: `selectors.vocabulary(facet)` (`TermListSerializer`); 404
    for unknown facets."""

    @extend_schema(
        operation_id="vocab_retrieve",
        summary="One facet's terms",
        description="The terms of one facet with slug, name, description, synonyms and "
        "number of published cases, by name; accelerators also with vendor and family.",
        parameters=[
            OpenApiParameter(
                "facet",
                OpenApiTypes.STR,
                OpenApiParameter.PATH,
                enum=[str(f) for f in VOCAB_FACETS],
                description="The facet.",
            ),
            *schema.CONDITIONAL_HEADERS,
        ],
        responses={
            200: OpenApiResponse(TermListSerializer, "The facet's terms."),
            301: OpenApiResponse(
                description="`error_code` (and `error_codes`, `codes`): to `/api/codes/`; a facet spelt "
                "otherwise (`root-cause`): to its spelling."
            ),
            304: schema.NOT_MODIFIED,
            **schema.error_responses(
                bad_request=NO_PARAMETERS, not_found="No such facet (those spelt close to it are suggested)."
            ),
        },
    )
    def get(self, request: Request, facet: str) -> HttpResponse:
        reject_all(request.query_params)
        if facet not in VOCAB_FACETS:
            return facet_elsewhere(request, facet)
        return self.answer(request, facet=facet)

    @conditional_on_store(keep=True)
    def answer(self, request: Request, *, facet: str) -> Response:
        terms = selectors.vocabulary(facet)
        families = shapes.family_slugs(terms)
        return Response(
            TermListSerializer(
                {"facet": facet, "terms": [shapes.term_entry(t, request, families) for t in terms]}
            ).data
        )


class StatsView(ApiView):
    """`GET /api/stats`: `selectors.case_stats()` with percentiles and buckets computed in
    `shapes.stats` (`StatsSerializer`); durations in seconds."""

    @extend_schema(
        operation_id="stats_retrieve",
        summary="Statistics over published cases",
        description=(
            "Counts by publication year, root-cause category, symptom, component and "
            "accelerator, and the distribution of time to resolve (seconds) and of the "
            "number of accelerators over the cases where they are known."
        ),
        parameters=schema.CONDITIONAL_HEADERS,
        responses={
            200: OpenApiResponse(StatsSerializer, "The statistics."),
            304: schema.NOT_MODIFIED,
            **schema.error_responses(bad_request=NO_PARAMETERS),
        },
    )
    def get(self, request: Request) -> Response:
        reject_all(request.query_params)
        return self.answer(request)

    @conditional_on_store(keep=True)
    def answer(self, request: Request) -> Response:
        return Response(StatsSerializer(shapes.stats(selectors.case_stats(), request)).data)
