"""Property-based run over the whole OpenAPI schema (schemathesis, in process over WSGI).

Every operation gets generated requests, valid and invalid ones; no answer may be a 5xx,
use a status, content type or header the schema does not document, or break its documented
shape, and invalid input must be refused with a 4xx.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from incidentlib.wsgi import application

from .conftest import openapi_schema

# A body over the upload limit is refused with 413, which is a rejection too; the write
# endpoints refuse an anonymous request (401) before they read its body.
CONFIG = SchemathesisConfig.from_dict(
    {
        "checks": {
            "negative_data_rejection": {"expected-statuses": [400, 401, 404, 405, 406, 413, 415, 422, 429]}
        }
    }
)
schema = schemathesis.openapi.from_dict(openapi_schema(), config=CONFIG)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
]


@pytest.fixture
def keep_test_connection():
    """The WSGI handler closes the database connection when a request ends, which would
    close the test transaction under the next request; keep it open for the run."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_api_honours_its_schema(case, keep_test_connection):
    case.call_and_validate(app=application, checks=CHECKS)
