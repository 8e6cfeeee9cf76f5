"""gunicorn's config file (``-c config/gunicorn.conf.py`` in the Procfile, docker and the test servers).

One thing only: the errors gunicorn answers itself, before Django sees the request (a request line over
``limit_request_line``, headers over ``limit_request_fields``/``limit_request_field_size``, a malformed
request), come in MemHQ's one JSON error shape (``memhq/api/errors.py``) instead of gunicorn's HTML page.
gunicorn has no hook for that body, so its ``util.write_error`` (what every worker class calls) is replaced
here, in the master before the workers fork.
"""

from __future__ import annotations

import json
import socket

from gunicorn import util

#: memhq.api.errors.CODES for the statuses gunicorn answers (importing it here would load Django early).
_CODES = {
    400: "invalid",
    403: "forbidden",
    414: "too_large",
    417: "invalid",
    431: "too_large",
    501: "invalid",
}


def write_json_error(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    body = json.dumps(
        {"error": {"code": _CODES.get(status_int, "server_error"), "message": mesg or reason, "fields": {}}}
    ).encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    util.write_nonblock(sock, head.encode("latin1") + body)


util.write_error = write_json_error
