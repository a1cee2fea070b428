"""The Langfuse SDK's OTLP path, served by the whole app as ``sumwatch up`` runs it."""

import base64

import httpx
import pytest
from google.rpc import status_pb2
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export import SpanExportResult
from test_receiver import PB, make_spans, otlp_json, started, stored

from sumwatch.monitor.ingest.receiver import LANGFUSE_TRACES_PATH, TRACES_PATH, ReceiverServer
from sumwatch.monitor.runtime import Runtime
from sumwatch.monitor.views.app import create_app

pytestmark = pytest.mark.integration

TOKEN = "s3cret-token"


def basic(public: str, secret: str) -> str:
    return "Basic " + base64.b64encode(f"{public}:{secret}".encode()).decode()


@pytest.fixture
def serve(settings, store):
    servers = []

    def start(**overrides):
        changed = settings.with_(**overrides)
        server = started(ReceiverServer(changed, app=create_app(Runtime.build(changed, store))))
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def test_the_langfuse_exporter_path_stores_protobuf_and_json_spans(serve, store):
    server = serve()
    url = server.endpoint + LANGFUSE_TRACES_PATH
    # what the Langfuse SDK sends: OTLP protobuf with its keys as Basic credentials
    exporter = OTLPSpanExporter(endpoint=url, headers={"authorization": basic("pk-lf-1", "sk-lf-1")})
    assert exporter.export(make_spans(1)) is SpanExportResult.SUCCESS
    assert len(stored(store)) == 2
    r = httpx.post(url, content=otlp_json(make_spans(1)), headers={"content-type": "application/json"})
    assert r.status_code == 200 and r.json() == {}
    assert len(stored(store)) == 4
    assert {row["SpanName"] for row in stored(store)} == {"summarize", "llm.call"}


def test_the_langfuse_path_takes_the_ingest_token_as_its_secret_key_or_the_whole_pair(serve, store):
    server = serve(ingest_token=TOKEN)
    body = encode_spans(make_spans(1)).SerializeToString()
    url = server.endpoint + LANGFUSE_TRACES_PATH
    assert httpx.post(url, content=body, headers={**PB, "authorization": basic("any-public-key", TOKEN)}
                      ).status_code == 200
    pair = "pk-lf-1:sk-lf-1"
    server = serve(ingest_token=pair)
    url = server.endpoint + LANGFUSE_TRACES_PATH
    assert httpx.post(url, content=body, headers={**PB, "authorization": basic("pk-lf-1", "sk-lf-1")}
                      ).status_code == 200
    assert httpx.post(server.endpoint + TRACES_PATH, content=body, headers={**PB, "authorization": f"Bearer {pair}"}
                      ).status_code == 200
    assert len(stored(store)) == 6  # three requests accepted, two spans each


@pytest.mark.parametrize("authorization,reason", [
    (None, "missing bearer token"),
    ("Bearer nope", "wrong bearer token"),
    (basic("pk-lf-1", "nope"), "wrong basic credentials"),
    (basic(TOKEN, "nope"), "wrong basic credentials"),  # the token as the public key opens nothing
    ("Basic !!!", "basic credentials are not base64"),
])
def test_a_wrong_token_is_refused_alike_on_both_paths(serve, store, authorization, reason):
    server = serve(ingest_token=TOKEN)
    body = encode_spans(make_spans(1)).SerializeToString()
    headers = {**PB, **({"authorization": authorization} if authorization else {})}
    for path in (TRACES_PATH, LANGFUSE_TRACES_PATH):
        r = httpx.post(server.endpoint + path, content=body, headers=headers)
        status = status_pb2.Status.FromString(r.content)
        assert r.status_code == 401 and status.code == 16 and status.message == f"unauthorized: {reason}"
        assert TOKEN not in r.text
    assert stored(store) == []
