"""Which addresses a webhook may be sent to.

Unless ``settings.MEMHQ_WEBHOOKS_ALLOW_PRIVATE`` is set, every address a URL's host resolves to must be a
public (globally routable) unicast address: private, loopback, link-local (cloud metadata at
169.254.169.254), shared (CGNAT), multicast, reserved and unspecified addresses are refused, including
IPv4-mapped IPv6 forms of them. The check runs when an endpoint is created or changed, and again at every
send, because DNS can point a public name at a private address later; the sender then connects to the
address it checked (see ``delivery``), so a second lookup cannot swap it.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings

ALLOWED_SCHEMES = ("http", "https")
DEFAULT_PORTS = {"http": 80, "https": 443}

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class AddressRefused(Exception):
    """The URL points at an address webhooks may not reach."""


class UnresolvableHost(Exception):
    """The host name does not resolve (now). Worth retrying at send time."""


def private_allowed() -> bool:
    return bool(settings.MEMHQ_WEBHOOKS_ALLOW_PRIVATE)


#: IPv6 ranges that carry an IPv4 address in their last 32 bits (NAT64 well-known and local-use prefixes,
#: IPv4-compatible): the embedded address is what the packet reaches, so it is the one checked.
_EMBEDS_IPV4_LAST_32 = tuple(
    ipaddress.IPv6Network(prefix) for prefix in ("64:ff9b::/96", "64:ff9b:1::/48", "::/96")
)
_SITE_LOCAL = ipaddress.IPv6Network("fec0::/10")  # deprecated, still routed privately by some networks


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if any(address in network for network in _EMBEDS_IPV4_LAST_32):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def is_public(address: IPAddress) -> bool:
    if isinstance(address, ipaddress.IPv6Address):
        if address in _SITE_LOCAL:
            return False
        inner = embedded_ipv4(address)
        if inner is not None:
            return is_public(inner)
    return address.is_global and not address.is_multicast


def host_and_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    if parts.scheme not in ALLOWED_SCHEMES or not parts.hostname:
        raise AddressRefused("Only http and https URLs with a host are allowed.")
    try:
        port = parts.port or DEFAULT_PORTS[parts.scheme]
    except ValueError as exc:
        raise AddressRefused("The URL's port is not valid.") from exc
    return parts.hostname, port


def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address ``host`` resolves to, in the resolver's order, without duplicates."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise UnresolvableHost(f"{host} does not resolve: {exc}") from exc
    addresses: list[IPAddress] = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])  # drop an IPv6 zone id
        if address not in addresses:
            addresses.append(address)
    return addresses


def check_addresses(host: str, addresses: list[IPAddress]) -> None:
    if private_allowed():
        return
    refused = [str(address) for address in addresses if not is_public(address)]
    if refused:
        raise AddressRefused(
            f"{host} resolves to a private, loopback or link-local address ({', '.join(refused)}); "
            "webhooks may only reach public addresses."
        )


def literal_address(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def check_url(url: str) -> None:
    """At creation/update: refuse a URL whose host is, or now resolves to, a non-public address.

    A name that does not resolve yet is accepted (it may be set up later); the send-time check still
    applies to whatever it resolves to then.
    """
    host, port = host_and_port(url)
    literal = literal_address(host)
    if literal is not None:
        check_addresses(host, [literal])
        return
    try:
        addresses = resolve(host, port)
    except UnresolvableHost:
        return
    check_addresses(host, addresses)


def addresses_for_send(url: str) -> tuple[str, int, list[IPAddress]]:
    """At send time: the host, port and the checked addresses to connect to.

    Raises ``AddressRefused`` (permanent) or ``UnresolvableHost`` (transient).
    """
    host, port = host_and_port(url)
    literal = literal_address(host)
    addresses = [literal] if literal is not None else resolve(host, port)
    check_addresses(host, addresses)
    return host, port, addresses
