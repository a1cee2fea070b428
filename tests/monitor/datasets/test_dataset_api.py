"""The datasets API on the app in this process: every route in the OpenAPI document under the tag datasets, uploads
named by their content type or ``format``, pages by cursor with the next one in the headers, and each refusal as
``{"error": one line}``: 400 for what breaks the document, 404 for a dataset, version, issue or rubric the server
does not have, 413 for a body too big, 422 for content that holds nothing to store."""

import io
import json

import pytest

from sumwatch.monitor.views.client import ClientError

LINES = b'{"source": "Doc A."}\n{"source": "Doc B."}\n{"source": "Doc C."}\n'


def test_every_dataset_route_is_in_the_document_under_datasets(client):
    document = client._http.get("/api/openapi.json").json()
    routes = {(method.upper(), path) for path, ops in document["paths"].items() if path.startswith("/api/datasets")
              for method, op in ops.items() if "datasets" in op["tags"]}
    assert routes == {("GET", "/api/datasets"), ("GET", "/api/datasets/{name}"), ("GET", "/api/datasets/{name}/items"),
                      ("POST", "/api/datasets/{name}/import"), ("POST", "/api/datasets/{name}/from-issue"),
                      ("POST", "/api/datasets/{name}/from-traces"), ("POST", "/api/datasets/{name}/from-corpus")}
    upload = document["paths"]["/api/datasets/{name}/import"]["post"]["requestBody"]["content"]
    assert set(upload) == {"application/x-ndjson", "application/jsonl", "text/csv", "application/vnd.apache.parquet"}
    for schema in ("DatasetItem", "DatasetVersion", "DatasetAnswer", "DatasetItemsPage"):
        assert schema in document["components"]["schemas"]


def test_an_upload_is_read_as_its_content_type_or_format_says(client):
    http = client._http
    made = http.post("/api/datasets/news/import", content=b"source\nDoc A.\nDoc B.\n",
                     headers={"content-type": "text/csv; charset=utf-8"}, params={"filename": "news.csv"})
    assert made.status_code == 200
    answer = made.json()
    assert (answer["created"], answer["items"], answer["dataset"]["origin"]) == (True, 2, "file:news.csv")
    again = http.post("/api/datasets/news/import", content=LINES, params={"format": "jsonl", "description": "more"})
    assert again.status_code == 200
    assert {k: again.json()[k] for k in ("created", "previous", "added", "removed", "changed")} == {
        "created": True, "previous": 1, "added": 1, "removed": 0, "changed": 0}
    assert again.json()["dataset"]["origin"] == "file:jsonl"
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = io.BytesIO()
    pq.write_table(pa.table({"source": ["Doc P."], "questions": [["Is it P?"]]}), out)
    parquet = client.import_dataset("pq", out.getvalue(), "parquet", filename="p.parquet")
    assert parquet.items == 1 and client.dataset_items("pq").items[0].questions == ("Is it P?",)


def test_a_versions_items_page_with_the_next_cursor_in_the_headers(client):
    client.import_dataset("news", LINES, "jsonl")
    first = client._http.get("/api/datasets/news/items", params={"limit": 2})
    body = first.json()
    assert [i["source"] for i in body["items"]] == ["Doc A.", "Doc B."]
    assert first.headers["x-next-cursor"] == body["next_cursor"] and 'rel="next"' in first.headers["link"]
    rest = client.dataset_items("news", limit=2, cursor=body["next_cursor"])
    assert [i.source for i in rest.items] == ["Doc C."] and rest.next_cursor is None
    assert [v.version for v in client.dataset_versions("news")] == [1]
    assert [d.name for d in client.datasets()] == ["news"]


@pytest.mark.parametrize(("method", "path", "kw", "status", "error"), [
    ("GET", "/api/datasets/nope", {}, 404, "no dataset 'nope'"),
    ("GET", "/api/datasets/news/items", {"params": {"version": 4}}, 404,
     "dataset 'news' has no version 4 (it has 1 to 1)"),
    ("GET", "/api/datasets/nope/items", {}, 404, "no dataset 'nope'"),
    ("GET", "/api/datasets/bad name", {}, 400, "a dataset name is 1 to 64 letters, digits, '_', '-' or '.', "
                                               "starting with a letter or digit, got 'bad name'"),
    ("GET", "/api/datasets/news/items", {"params": {"version": 0}}, 400, "version must be at least 1, got '0'"),
    ("GET", "/api/datasets/news/items", {"params": {"cursor": "abc"}}, 422, "cursor is not one this server gave"),
    ("POST", "/api/datasets/news/import", {"content": LINES}, 400, "say the file's format: ?format= jsonl, csv, "
                                                                   "parquet, or a Content-Type of"),
    ("POST", "/api/datasets/news/import", {"content": LINES, "params": {"format": "xlsx"}}, 400,
     "format must be one of 'jsonl', 'csv' or 'parquet', got 'xlsx'"),
    ("POST", "/api/datasets/news/import", {"content": b"", "params": {"format": "csv"}}, 422,
     "the file holds no items"),
    ("POST", "/api/datasets/news/import", {"content": b"{}\n[]\n", "params": {"format": "jsonl"}}, 422,
     "no line of the file holds a usable item; line 1: source is required (and 1 more bad lines)"),
    ("POST", "/api/datasets/news/import", {"content": b"nope", "params": {"format": "parquet"}}, 422,
     "not a Parquet file this server can read: "),
    ("POST", "/api/datasets/news/from-issue", {"json": {"issue": "SW-4"}}, 404, "no issue SW-4"),
    ("POST", "/api/datasets/news/from-issue", {"json": {"issue": "SW-4", "more": 1}}, 400, "unknown field more"),
    ("POST", "/api/datasets/news/from-traces", {"json": {"limit": "5"}}, 400, "limit must be a whole number"),
    ("POST", "/api/datasets/news/from-traces", {"json": {"limit": 0}}, 400, "limit must be at least 1"),
    ("POST", "/api/datasets/news/from-traces", {"json": {"filters": {"rubric": "tonality"}}}, 404,
     "rubric must be one of"),
    ("POST", "/api/datasets/news/from-traces", {"json": {}}, 422,
     "nothing to store in dataset 'news': no items; no summarization span matches the filters"),
    ("POST", "/api/datasets/news/from-corpus", {"json": {"rubric": "tonality"}}, 404, "rubric must be one of"),
    ("POST", "/api/datasets/news/from-corpus", {"json": {"rubric": "factuality", "status": "rejected"}}, 422,
     "nothing to store in dataset 'news': no items; the factuality corpus has no items of status rejected"),
])
def test_each_refusal_is_one_line_with_its_status(client, method, path, kw, status, error):
    client.import_dataset("news", LINES, "jsonl")
    answer = client._http.request(method, path, **kw)
    assert answer.status_code == status, answer.text
    assert set(answer.json()) == {"error"} and answer.json()["error"].startswith(error), answer.json()
    assert "\n" not in answer.json()["error"]
    assert [v.version for v in client.dataset_versions("news")] == [1]  # nothing stored is lost


def test_a_body_over_the_limit_is_a_413(store, settings):
    from sumwatch.monitor.runtime import Runtime
    from sumwatch.monitor.views.app import create_app
    from sumwatch.monitor.views.client import ApiClient

    app = create_app(Runtime.build(settings.with_(max_body_bytes=64), store))
    with ApiClient.in_process(app) as small, pytest.raises(ClientError) as refused:
        small.import_dataset("news", LINES * 2, "jsonl")
    assert refused.value.status == 413 and refused.value.reason == "the body is over 64 bytes; split the file"


def test_made_from_an_issue_through_the_client(client, issue):
    answer = client.dataset_from("sw1", "issue", {"issue": "1", "description": "SW-1's failures"})
    assert (answer.dataset.origin, answer.dataset.description, answer.items) == ("issue:SW-1", "SW-1's failures", 2)
    assert json.loads(client.dataset_items("sw1").items[1].json_line())["metadata"]["trace_id"].endswith("1")
