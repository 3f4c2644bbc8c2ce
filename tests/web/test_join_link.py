"""The join link on the table view names the port the server really listens on, whatever port the
``Host`` header names (``Host: localhost:1`` once gave a link to port 1), or the configured
public URL. Against the real server (``web.serve``) on 127.0.0.1."""

from __future__ import annotations

import re
import socket

import pytest

from companion.eventlog import EventLog
from companion.host import Host
from web import create_app, serve


@pytest.fixture
def host():
    return Host(EventLog(":memory:"))


def _get(port: int, path: str, host_header: str) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host_header}\r\nConnection: close\r\n\r\n"
                     .encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return data.decode("utf-8", "replace")


def _links(page: str) -> set[str]:
    return set(re.findall(r'href="(http://[^"]*/join/tok)"', page))


@pytest.mark.parametrize("host_header", ["localhost:1", "127.0.0.1:65000", "localhost",
                                         "[::1]:8"])
def test_the_join_link_uses_the_port_the_server_listens_on(host, host_header):
    web = serve(host, "127.0.0.1", 0, block=False, secret_key="k", join_token="tok")
    try:
        page = _get(web.port, "/", host_header)
        assert page.startswith("HTTP/1.1 200"), page[:200]
        assert _links(page) == {f"http://127.0.0.1:{web.port}/join/tok"}
    finally:
        web.shutdown()


def test_the_organisers_qr_code_uses_the_real_port_too(host):
    web = serve(host, "127.0.0.1", 0, block=False, secret_key="k", join_token="tok")
    try:
        c = web.app.test_client()
        pin = web.organiser_pin
        c.post("/api/join", json={"token": "tok", "seat": None, "pin": pin},
               base_url="http://localhost:1")
        svg = c.get("/api/qr.svg", base_url="http://localhost:1").get_data(as_text=True)
        assert f"http://127.0.0.1:{web.port}/join/tok" in svg and ":1/join" not in svg
    finally:
        web.shutdown()


def test_the_public_url_wins_over_any_host_header(host):
    web = serve(host, "127.0.0.1", 0, block=False, secret_key="k", join_token="tok",
                public_url="http://10.1.2.3:9000/")
    try:
        assert _links(_get(web.port, "/", "localhost:1")) == {"http://10.1.2.3:9000/join/tok"}
    finally:
        web.shutdown()


def test_an_app_outside_serve_takes_the_port_the_request_came_to(host):
    """A WSGI server other than ``serve`` says its port in ``SERVER_PORT``, never the Host."""
    app = create_app(host, secret_key="k", join_token="tok", lan_address=lambda: "192.168.1.20")
    app.config["BIND_ADDRESS"] = "0.0.0.0"
    page = app.test_client().get("/", base_url="http://localhost:8000",
                                 headers={"Host": "localhost:1"}).get_data(as_text=True)
    assert "http://192.168.1.20:8000/join/tok" in page and ":1/join" not in page
