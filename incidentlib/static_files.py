"""Static files served by the app itself (whitenoise), read lazily under ASGI too.

whitenoise (6.x, no ASGI support: evansd/whitenoise#179, #359) answers a `FileResponse`
whose content is a synchronous iterator of the file's blocks. Django's ASGI handler cannot
read that lazily: it warns ("StreamingHttpResponse must consume synchronous iterators in
order to serve them asynchronously"), on stderr outside the JSON log, and reads the whole
file into memory before sending it, for every stylesheet, script and 304 answer. Served
by uvicorn (`make run`), the file's blocks are handed over one at a time from the request's
thread instead (`api.http.streamed`, what the streamed export does), as Django's own
`ASGIStaticFilesHandler` hands over a `FileResponse` (it reads the whole file first) and as
ServeStatic, whitenoise's ASGI fork, reads files (a block at a time, off the event loop).
Under WSGI the answer is whitenoise's, unchanged.
"""

from __future__ import annotations

from typing import Any

from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest
from whitenoise.middleware import WhiteNoiseMiddleware

from api.http import streamed

# Bytes read from a static file at a time under ASGI: each block is one hop into the
# request's thread and one ASGI message, so a larger block than Django's 4 KiB keeps the
# Swagger UI bundle (1.6 MB) at 25 of each.
ASGI_BLOCK_SIZE = 64 * 1024


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    """whitenoise's middleware whose file answers Django's ASGI handler reads a block at a
    time (module docstring)."""

    @staticmethod
    def serve(static_file: Any, request: HttpRequest) -> Any:
        """whitenoise's answer for `static_file`; under ASGI its content an asynchronous
        iterator of `ASGI_BLOCK_SIZE` blocks (none for a HEAD or a 304)."""
        response = WhiteNoiseMiddleware.serve(static_file, request)
        if isinstance(request, ASGIRequest):
            # The block size is read at each read (`FileResponse`'s iterator), so it applies to
            # the iterator already made; the file stays among the response's closers.
            response.block_size = ASGI_BLOCK_SIZE
            response.streaming_content = streamed(request, iter(response.streaming_content))
        return response
