"""The Host and Origin lists guarding /mcp come from ALLOWED_HOSTS (DNS-rebinding protection)."""

from __future__ import annotations

from django.test import override_settings

from mcp_server.http_app import transport_security


@override_settings(ALLOWED_HOSTS=["incidents.example.org", "127.0.0.1"], MCP_ALLOWED_ORIGINS=[])
def test_each_allowed_host_on_any_port_and_its_origins():
    settings = transport_security()
    assert settings.enable_dns_rebinding_protection is True
    assert settings.allowed_hosts == [
        "incidents.example.org",
        "incidents.example.org:*",
        "127.0.0.1",
        "127.0.0.1:*",
    ]
    assert settings.allowed_origins[:4] == [
        "http://incidents.example.org",
        "http://incidents.example.org:*",
        "https://incidents.example.org",
        "https://incidents.example.org:*",
    ]
    assert "http://evil.example" not in settings.allowed_origins


@override_settings(ALLOWED_HOSTS=[".example.org"], MCP_ALLOWED_ORIGINS=["https://inspector.example.net"])
def test_extra_origins_and_subdomain_patterns():
    settings = transport_security()
    assert settings.allowed_hosts == ["example.org", "example.org:*"]
    assert settings.allowed_origins[0] == "https://inspector.example.net"


@override_settings(ALLOWED_HOSTS=["*"])
def test_a_wildcard_turns_the_check_off_as_in_django():
    assert transport_security().enable_dns_rebinding_protection is False
