"""Django's ASGI handler with one thread hop per request instead of four.

Django builds an ASGI handler's middleware chain asynchronous at the bottom (its
`_get_response_async`), so a chain of synchronous middleware costs a hop into a thread at
the top, a hop back to the event loop at the bottom (`async_to_sync` around the async
core), and a hop into a thread again for each synchronous `process_view` (CSRF's) and for
the view: four switches between the event loop and a thread for every request, each a
future, a context copy and a wake-up. Every view and every middleware here is
synchronous (Django's `MiddlewareMixin` ones run synchronously in either mode, and in
async mode each of their hooks would be a hop of its own), so this handler builds the
chain synchronous, as under WSGI, and runs it whole in the request's thread: one hop.
Reading the request and sending the response stay asynchronous (Django's `ASGIHandler`),
so streamed answers and slow clients still cost no thread while they wait.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.http import HttpRequest
from django.http.response import HttpResponseBase


class OneHopASGIHandler(ASGIHandler):
    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
        # `get_response` is the synchronous path WSGI takes: URL conf, the chain, the
        # request's closers and the log line of an error answer.
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)
