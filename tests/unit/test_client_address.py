"""The client address of a request, and the rate-limit keys the settings check."""

from __future__ import annotations

from typing import Any

import pytest

from app.config import ConfigError, load_settings
from app.http.client_address import ClientAddresses, parse_networks


def _scope(peer: str | None, *forwarded: str) -> dict[str, Any]:
    return {
        "type": "http",
        "client": None if peer is None else (peer, 50000),
        "headers": [(b"x-forwarded-for", value.encode("latin-1")) for value in forwarded],
    }


PROXIES = ClientAddresses.from_setting("10.0.0.0/8, 192.0.2.1, 2001:db8::/32")


def test_without_trusted_proxies_the_peer_is_the_client_and_the_header_is_ignored() -> None:
    addresses = ClientAddresses()

    assert addresses.of(_scope("198.51.100.4", "203.0.113.9")) == "198.51.100.4"


def test_a_peer_that_is_no_trusted_proxy_cannot_name_another_address() -> None:
    assert PROXIES.of(_scope("198.51.100.4", "203.0.113.9")) == "198.51.100.4"


def test_behind_a_trusted_proxy_the_right_most_untrusted_entry_is_the_client() -> None:
    # The client put 203.0.113.66 in front itself; the proxy appended what it saw.
    scope = _scope("10.1.2.3", "203.0.113.66, 198.51.100.4")

    assert PROXIES.of(scope) == "198.51.100.4"


def test_a_chain_of_trusted_proxies_is_walked_through() -> None:
    scope = _scope("10.1.2.3", "198.51.100.4, 192.0.2.1", "10.9.9.9")

    assert PROXIES.of(scope) == "198.51.100.4"


def test_when_every_hop_is_trusted_the_left_most_one_is_the_client() -> None:
    assert PROXIES.of(_scope("10.1.2.3", "10.5.5.5, 10.6.6.6")) == "10.5.5.5"


def test_a_malformed_entry_ends_the_walk_at_the_last_trusted_hop() -> None:
    assert PROXIES.of(_scope("10.1.2.3", "198.51.100.4, unknown, 10.6.6.6")) == "10.6.6.6"
    assert PROXIES.of(_scope("10.1.2.3")) == "10.1.2.3"


@pytest.mark.parametrize(
    ("entry", "client"),
    [
        ("198.51.100.4:5555", "198.51.100.4"),
        ("[2001:db9::7]:443", "2001:db9::7"),
        ("2001:db9::7", "2001:db9::7"),
        ("::ffff:198.51.100.4", "198.51.100.4"),
    ],
)
def test_ports_brackets_and_mapped_addresses_are_understood(entry: str, client: str) -> None:
    assert PROXIES.of(_scope("2001:db8::1", entry)) == client


def test_a_request_without_a_peer_shares_one_key() -> None:
    assert PROXIES.of(_scope(None, "198.51.100.4")) == "unknown"


def test_trusted_proxies_are_addresses_or_networks() -> None:
    assert [str(n) for n in parse_networks(" 10.0.0.0/8 ,192.0.2.1,, ")] == [
        "10.0.0.0/8",
        "192.0.2.1/32",
    ]
    with pytest.raises(ValueError, match="does not appear"):
        parse_networks("10.0.0.0/8, proxy.example.com")


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("RATE_LIMIT_TRUSTED_PROXIES", "proxy.example.com"),
        ("RATE_LIMIT_STORAGE", "memcached://127.0.0.1:11211"),
        ("RATE_LIMIT_STORAGE", "redis://"),
        ("RATE_LIMIT_STORAGE_FAILURE_MODE", "sometimes"),
    ],
)
def test_the_rate_limit_keys_refuse_what_they_cannot_use(variable: str, value: str) -> None:
    with pytest.raises(ConfigError, match=variable):
        load_settings(environ={variable: value})


def test_a_refused_storage_url_is_not_echoed() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(environ={"RATE_LIMIT_STORAGE": "mongodb://alex:s3cret@db.example.com"})

    assert "s3cret" not in str(caught.value)


@pytest.mark.parametrize(
    "url",
    [
        "memory://",
        "redis://127.0.0.1:6379/0",
        "redis://:s3cret@redis.example.com:6379/2",
        "rediss://redis.example.com:6380/0",
        "redis+unix:///run/redis/redis.sock?db=0",
    ],
)
def test_memory_and_redis_urls_are_accepted(url: str) -> None:
    assert load_settings(environ={"RATE_LIMIT_STORAGE": url}).text("rate_limit.storage") == url
