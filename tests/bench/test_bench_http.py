"""The load generator's request plan: which request each client sends, one after the other."""

from __future__ import annotations

import itertools

from tooling.bench.http import Target

BODIES = [b'{"n":0}', b'{"n":1}', b'{"n":2}']


def sent(target: Target, client: int, count: int) -> list[bytes]:
    return [
        request.rpartition(b"\r\n\r\n")[2]
        for request in itertools.islice(target.client_requests(client), count)
    ]


def test_each_client_repeats_its_own_body_by_default() -> None:
    target = Target(url="http://127.0.0.1:1/x", bodies=BODIES)
    assert sent(target, 0, 3) == [BODIES[0]] * 3
    assert sent(target, 4, 2) == [BODIES[1]] * 2  # client 4 of 3 bodies: body 4 mod 3


def test_rotating_clients_send_every_body_in_turn_from_their_own_offset() -> None:
    target = Target(url="http://127.0.0.1:1/x", bodies=BODIES, rotate=True)
    assert sent(target, 0, 4) == [BODIES[0], BODIES[1], BODIES[2], BODIES[0]]
    assert sent(target, 2, 3) == [BODIES[2], BODIES[0], BODIES[1]]


def test_requests_carry_the_headers_and_the_body_length() -> None:
    target = Target(
        url="http://127.0.0.1:1/v1/x", bodies=BODIES, headers={"Authorization": "Bearer k"}, rotate=True
    )
    request = next(target.client_requests(1))
    head, _, body = request.partition(b"\r\n\r\n")
    assert head.startswith(b"POST /v1/x HTTP/1.1\r\n") and b"Authorization: Bearer k" in head
    assert b"Content-Length: 7" in head and body == BODIES[1]
