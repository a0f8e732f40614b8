"""``mjlens serve`` says where to open the phone page: the address it listens on, or for every interface this
machine's address on its network."""

from __future__ import annotations

import ipaddress

import pytest

from mjlens.api.cli.commands.serve import page_url


@pytest.mark.parametrize(("host", "url"), [("127.0.0.1", "http://127.0.0.1:8000/"), ("::1", "http://[::1]:8000/"),
                                           ("192.168.1.20", "http://192.168.1.20:8000/")])
def test_the_url_of_one_address(host, url):
    assert page_url(host, 8000) == url


@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_every_interface_gives_an_address_a_phone_can_open(host):
    url = page_url(host, 8080)
    assert url.startswith("http://") and url.endswith(":8080/")
    address = ipaddress.ip_address(url[len("http://"):-len(":8080/")].strip("[]"))
    assert not address.is_unspecified
