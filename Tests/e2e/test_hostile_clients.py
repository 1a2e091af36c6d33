"""The short form of the hostile-clients suite (Tests/e2e/hostile_clients.py) against the real binary: every
malformed and smuggling shape gets the right status or a clean close, 1,000 slowloris connections do not slow a
healthy client, 10,000 pipelined requests, 20,000 connect-and-close cycles and 5,000 keep-alive connections are
all handled, and afterwards the server answers with its descriptor count back where it started."""
import pytest

import hostile_clients as hostile
from conftest import FIXTURES, Server


@pytest.fixture(scope="module")
def target():
    hostile.roomy_fd_limit()  # the server inherits it: 5,000 connections need more than 1,024 descriptors
    s = Server([str(FIXTURES / "baseline.jpg"), "--header-timeout", "2", "--access-log", "off"])
    assert hostile.still_answers(s.port)
    for path in ("/tiles/9/0/0.jpg", "/tiles/0/0/0.jpg"):  # decode passes keep their files open: count them in
        assert s.get(path)[0].status == 200
    baseline = hostile.open_fds(s.process.pid)
    yield s, baseline
    code, log = s.stop()
    assert code == 0, log[-2000:]


def after(target):
    server, baseline = target
    assert hostile.still_answers(server.port)
    assert hostile.settle_fds(server.process.pid, baseline) <= baseline


def test_malformed_and_smuggling_shapes(target):
    wrong = [result for result in hostile.shapes(target[0].port) if not result[3]]
    assert wrong == []
    after(target)


def test_slowloris_does_not_slow_a_healthy_client(target):
    server, _ = target
    p99, requests, closed, still_open = hostile.slowloris(server.port, 1000, 8, "/tiles/9/0/0.jpg")
    assert requests > 200
    assert p99 < 50, f"healthy client p99 {p99:.1f} ms"
    assert closed == 1000 and still_open == 0, "the header timeout closes every slow connection"
    after(target)


def test_ten_thousand_pipelined_requests(target):
    assert hostile.pipelined(target[0].port, 10000) == 10000
    after(target)


def test_twenty_thousand_connect_and_close_cycles(target):
    assert hostile.connect_close(target[0].port, 20000) == 20000
    after(target)


def test_five_thousand_keep_alive_connections(target):
    assert hostile.keep_alive_crowd(target[0].port, 5000) == 10000
    after(target)
