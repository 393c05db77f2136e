"""The Host and Origin checks guarding /mcp use ALLOWED_HOSTS, as Django does (DNS-rebinding
protection), plus MCP_ALLOWED_ORIGINS for clients served from other origins."""

from __future__ import annotations

from django.test import override_settings

from mcp_server.http_guard import host_allowed, origin_allowed


@override_settings(ALLOWED_HOSTS=["incidents.example.org", "127.0.0.1"], MCP_ALLOWED_ORIGINS=[])
def test_each_allowed_host_on_any_port_and_its_origins():
    for host in ("incidents.example.org", "incidents.example.org:8443", "127.0.0.1", "127.0.0.1:8120"):
        assert host_allowed(host), host
    for origin in (
        "http://incidents.example.org",
        "http://incidents.example.org:8080",
        "https://incidents.example.org",
        "https://incidents.example.org:8443",
    ):
        assert origin_allowed(origin), origin
    assert not origin_allowed("http://evil.example")
    assert not origin_allowed("ftp://incidents.example.org")
    assert not host_allowed("evil.example")


@override_settings(ALLOWED_HOSTS=[".example.org"], MCP_ALLOWED_ORIGINS=["https://inspector.example.net"])
def test_extra_origins_and_subdomain_patterns():
    assert host_allowed("example.org") and host_allowed("mcp.example.org")
    assert not host_allowed("inspector.example.net")
    assert origin_allowed("https://inspector.example.net")
    assert not origin_allowed("https://other.example.net")


@override_settings(ALLOWED_HOSTS=["*"], MCP_ALLOWED_ORIGINS=[])
def test_a_wildcard_turns_the_check_off_as_in_django():
    assert host_allowed("anything.example") and origin_allowed("http://anything.example")
