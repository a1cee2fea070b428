"""Slow and stuck clients, over raw sockets on loopback: closed by the header and body timeouts while
other clients are served, and a cap on open connections."""

import socket
import threading
import time

import httpx
import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from test_receiver import PB, make_spans, started, stored

from sumwatch.monitor.ingest.receiver import ReceiverServer

pytestmark = pytest.mark.integration

HEADERS = b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"


@pytest.fixture
def body():
    return encode_spans(make_spans(1)).SerializeToString()


@pytest.fixture
def receiver(settings, store):
    server = started(ReceiverServer(settings.with_(header_timeout_s=1.0, body_timeout_s=1.5), store))
    yield server
    server.stop()


def connect(server) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    return sock


def closed_within(sock: socket.socket, seconds: float) -> tuple[bool, bytes]:
    """Whether the server closed the socket within ``seconds``, and what it sent before."""
    sock.settimeout(seconds)
    got = b""
    try:
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return True, got
            got += chunk
    except ConnectionResetError:
        return True, got
    except TimeoutError:
        return False, got


def trickle(sock: socket.socket, data: bytes, every: float, stop: threading.Event) -> None:
    """Send one byte every ``every`` seconds until done, stopped, or the server hangs up."""
    for i in range(len(data)):
        if stop.is_set():
            return
        try:
            sock.sendall(data[i:i + 1])
        except OSError:
            return
        time.sleep(every)


def test_headers_sent_a_byte_at_a_time_are_cut_off_while_others_are_served(receiver, store, body):
    slow, stop = connect(receiver), threading.Event()
    sender = threading.Thread(target=trickle, args=(slow, HEADERS, 0.2, stop), daemon=True)
    started = time.monotonic()
    sender.start()
    try:
        # while the slow client dribbles its headers, a normal client is answered at once
        r = httpx.post(receiver.endpoint + "/v1/traces", content=body, headers=PB, timeout=5)
        assert r.status_code == 200
        closed, _ = closed_within(slow, 5)
        assert closed and time.monotonic() - started < 3  # the 1 s header timeout, not the client's pace
    finally:
        stop.set()
        slow.close()
    assert len(stored(store)) == 2


def test_a_connection_that_sends_nothing_is_closed(receiver):
    idle = connect(receiver)
    try:
        started = time.monotonic()
        closed, got = closed_within(idle, 5)
        assert closed and got == b"" and time.monotonic() - started < 3
    finally:
        idle.close()


def test_a_body_sent_a_byte_at_a_time_gets_408_and_is_closed(receiver, store, body):
    slow, stop = connect(receiver), threading.Event()
    slow.sendall(HEADERS + f"Content-Length: {len(body)}\r\n\r\n".encode())
    sender = threading.Thread(target=trickle, args=(slow, body, 0.2, stop), daemon=True)
    started = time.monotonic()
    sender.start()
    try:
        r = httpx.post(receiver.endpoint + "/v1/traces", content=body, headers=PB, timeout=5)
        assert r.status_code == 200
        closed, answer = closed_within(slow, 5)
        assert closed and answer.startswith(b"HTTP/1.1 408 ")
        assert b"not received within 1.5 s" in answer
        assert time.monotonic() - started < 4
    finally:
        stop.set()
        slow.close()
    assert len(stored(store)) == 2  # the good client's spans only


@pytest.mark.slow
def test_keep_alive_connections_get_a_fresh_header_timeout_per_request(receiver, body):
    sock = connect(receiver)
    try:
        for _ in range(3):  # requests over 3 s on one connection, each well within its own timeout
            sock.sendall(HEADERS + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            sock.settimeout(5)
            answer = sock.recv(65536)
            assert answer.startswith(b"HTTP/1.1 200 ")
            time.sleep(1.2)  # longer than the header timeout, shorter than uvicorn's 5 s keep-alive
    finally:
        sock.close()


def keep_alive(server) -> socket.socket:
    """A connection that has had one answer and stays open, idle."""
    sock = connect(server)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    answer = b""
    while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
        chunk = sock.recv(4096)
        assert chunk, "closed before answering"
        answer += chunk
    assert answer.startswith(b"HTTP/1.1 200 ")
    return sock


def test_idle_connections_up_to_the_cap_are_shed_oldest_first_so_probes_and_work_are_served(settings, store, body):
    # idle connections must outlive the test's steps however slow the machine: only the cap may close them
    server = started(ReceiverServer(settings.with_(max_connections=5), store, keep_alive_s=600))
    held = [keep_alive(server) for _ in range(5)]
    try:
        # two more connections, each answered a probe while the cap was full and kept open: they made room
        # by closing the two idle longest
        held += [keep_alive(server) for _ in range(2)]
        assert [closed_within(sock, 5)[0] for sock in held[:2]] == [True, True]
        assert httpx.post(server.endpoint + "/v1/traces", content=body, headers=PB, timeout=5).status_code == 200
        # the newest still serves
        held[-1].sendall(HEADERS + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        held[-1].settimeout(5)
        assert held[-1].recv(65536).startswith(b"HTTP/1.1 200 ")
    finally:
        for sock in held:
            sock.close()
        server.stop()
    assert len(stored(store)) == 4  # both posts' spans


def test_requests_in_progress_over_the_cap_get_503_but_the_probes_are_answered(settings, store, body):
    server = started(ReceiverServer(settings.with_(max_connections=3), store))
    url = server.endpoint + "/v1/traces"
    # three requests whose bodies never come: in progress until the body timeout
    held = [connect(server) for _ in range(3)]
    for sock in held:
        sock.sendall(HEADERS + f"Content-Length: {len(body)}\r\n\r\n".encode())
    try:
        for _ in range(100):  # until the server has taken all three requests in
            busy = httpx.post(url, content=body, headers=PB, timeout=5)
            if busy.status_code == 503:
                break
            time.sleep(0.05)
        assert busy.status_code == 503 and busy.headers["retry-after"] == "1" and b"busy" in busy.content
        assert httpx.get(server.endpoint + "/healthz", timeout=5).status_code == 200
        assert httpx.get(server.endpoint + "/readyz", timeout=5).json() == {"status": "ready"}
        for sock in held:
            sock.sendall(body)  # the held requests complete and are stored
            sock.settimeout(5)
            assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
        assert httpx.post(url, content=body, headers=PB, timeout=5).status_code == 200
    finally:
        for sock in held:
            sock.close()
        server.stop()
