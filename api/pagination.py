from rest_framework.pagination import PageNumberPagination


class CasePagination(PageNumberPagination):
    """Page-number pagination: `count`, `next`, `previous`, `results`."""

    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100
