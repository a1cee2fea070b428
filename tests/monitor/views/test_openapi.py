"""The API's OpenAPI document over real HTTP: it is valid OpenAPI 3.1, it documents every /api route the
server has, and real answers of every route (reads, a label, score now, cluster now) match their schemas."""

import threading

import httpx
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate as validate_spec

from sumwatch.monitor.ingest.receiver import LANGFUSE_TRACES_PATH
from sumwatch.monitor.views.app import served_routes

HEADERS = {"authorization": "Bearer s3cret-token"}


def _document(server):
    answer = httpx.get(server.endpoint + "/api/openapi.json", headers=HEADERS, timeout=10)
    assert answer.status_code == 200
    return answer.json()


def _check(document, method, path, answer, status=200):
    """The answer has the status and matches the schema the document gives for it."""
    assert answer.status_code == status, (method, path, answer.text[:300])
    responses = document["paths"][path][method.lower()]["responses"]
    schema = responses[str(status)]["content"]["application/json"]["schema"]
    validator = Draft202012Validator({**schema, "components": document["components"]})
    errors = sorted(validator.iter_errors(answer.json()), key=str)
    assert not errors, f"{method} {path}: {errors[0].message} at {list(errors[0].absolute_path)}"
    return answer.json()


def test_the_document_is_valid_openapi_and_lists_every_api_route_of_the_running_app(api):
    server, _, _ = api
    document = _document(server)
    validate_spec(document)
    assert document["openapi"].startswith("3.1")
    app = server._server.config.app
    # the Langfuse SDK's OTLP path is ingest, like /v1/traces, not the JSON API the document describes
    served = {(route.path, method) for route in served_routes(app.routes) if route.path.startswith("/api")
              and route.path not in ("/api/openapi.json", "/api/docs", LANGFUSE_TRACES_PATH)
              for method in route.methods - {"HEAD"}}
    documented = {(path, method.upper()) for path, ops in document["paths"].items() for method in ops
                  if method != "head"}
    assert served == documented and len(served) >= 17
    assert ("/api/issues/{issue_id}/export", "POST") in documented  # routes another room mounts are listed too
    assert httpx.get(server.endpoint + "/api/openapi.json", timeout=10).status_code == 401  # it wants the token too
    page = httpx.get(server.endpoint + "/issues", timeout=10)  # a dashboard page: to the login form
    assert page.status_code == 303 and page.headers["location"] == "/login?next=%2Fissues"


def test_real_answers_of_every_read_route_match_their_schemas(api):
    server, trace_ids, _ = api
    document = _document(server)
    get = lambda path, **params: httpx.get(server.endpoint + path, params=params, headers=HEADERS, timeout=30)  # noqa: E731

    assert len(_check(document, "GET", "/api/traces", get("/api/traces", limit=10))) == 4
    assert _check(document, "GET", "/api/traces", get("/api/traces", service="nobody")) == []
    spans = get("/api/traces").json()
    domain, band = spans[0]["domain"], spans[0]["band"]
    kept = _check(document, "GET", "/api/traces", get("/api/traces", domain=domain, band=band))
    assert kept and {(t["domain"], t["band"]) for t in kept} == {(domain, band)}
    assert len(get("/api/traces", since="2000-01-01T00:00:00Z").json()) == 4
    assert get("/api/traces", since="2999-01-01T00:00:00").json() == []  # no zone: UTC
    _check(document, "GET", "/api/traces", get("/api/traces", since="yesterday"), 400)
    spans = _check(document, "GET", "/api/traces/{trace_id}", get(f"/api/traces/{trace_ids[0]}"))
    assert spans[0]["trace_id"] == trace_ids[0]
    _check(document, "GET", "/api/traces/{trace_id}", get(f"/api/traces/{'ab' * 16}"), 404)
    _check(document, "GET", "/api/traces/{trace_id}", get("/api/traces/nope"), 400)
    scores = _check(document, "GET", "/api/scores", get("/api/scores", limit=500))
    assert scores and {s["rubric"] for s in scores} == {"groundedness", "completeness", "factuality", "conciseness"}
    failing = _check(document, "GET", "/api/scores", get("/api/scores", failing="1", rubric="factuality"))
    assert all(not s["passed"] and s["rubric"] == "factuality" for s in failing)
    _check(document, "GET", "/api/scores", get("/api/scores", rubric="tone"), 404)
    mine = _check(document, "GET", "/api/traces/{trace_id}/scores", get(f"/api/traces/{trace_ids[1]}/scores"))
    assert len(mine) == 4 and {s["trace_id"] for s in mine} == {trace_ids[1]}
    runs = _check(document, "GET", "/api/runs", get("/api/runs"))
    assert [r["run_id"] for r in runs] == ["run-1"]
    _check(document, "GET", "/api/runs/{run_id}", get("/api/runs/run-1"))
    _check(document, "GET", "/api/runs/{run_id}", get("/api/runs/run-9"), 404)
    listing = _check(document, "GET", "/api/issues", get("/api/issues", resolved="0"))
    assert [i["issue_id"] for i in listing["issues"]] == ["SW-1"]
    detail = _check(document, "GET", "/api/issues/{issue_id}", get("/api/issues/SW-1"))
    assert detail["trace_ids"] == trace_ids[:2]
    _check(document, "GET", "/api/issues/{issue_id}", get("/api/issues/SW-7"), 404)
    exists = httpx.head(server.endpoint + "/api/issues/SW-1", headers=HEADERS, timeout=10)
    missing = httpx.head(server.endpoint + "/api/issues/SW-7", headers=HEADERS, timeout=10)
    assert (exists.status_code, missing.status_code) == (200, 404)


def test_the_labelling_queue_a_label_and_the_calibration_report(api):
    server, _, _ = api
    document = _document(server)
    get = lambda path, **params: httpx.get(server.endpoint + path, params=params, headers=HEADERS, timeout=60)  # noqa: E731
    post = lambda path, body: httpx.post(server.endpoint + path, json=body, headers=HEADERS, timeout=60)  # noqa: E731

    corpus = _check(document, "GET", "/api/corpus", get("/api/corpus", rubric="factuality", limit=3))
    assert corpus["total"] > 3 and len(corpus["items"]) == 3  # the packaged starter corpus, seeded
    queue = _check(document, "GET", "/api/corpus", get("/api/corpus", status="needs_label"))
    assert queue["total"] == 2 and {i["status"] for i in queue["items"]} == {"needs_label"}
    item = queue["items"][0]
    _check(document, "GET", "/api/corpus/{item_id}", get(f"/api/corpus/{item['item_id']}"))
    _check(document, "GET", "/api/corpus/{item_id}", get("/api/corpus/nope"), 404)
    verdict = "correct"  # the person disagrees with the proposed numerically_wrong
    labelled = _check(document, "POST", "/api/corpus/{item_id}/label",
                      post(f"/api/corpus/{item['item_id']}/label", {"verdict": verdict, "note": "checked"}))
    assert labelled["status"] == "labelled" and labelled["human_verdict"] == verdict
    after = get("/api/corpus", status="needs_label").json()
    assert item["item_id"] not in {i["item_id"] for i in after["items"]} and after["total"] == queue["total"] - 1
    _check(document, "POST", "/api/corpus/{item_id}/label", post(f"/api/corpus/{item['item_id']}/label",
                                                                 {"verdict": "splendid"}), 422)
    _check(document, "POST", "/api/corpus/{item_id}/label", post("/api/corpus/nope/label", {"verdict": "x"}), 404)
    bad = post(f"/api/corpus/{item['item_id']}/label", {"verdict": "x", "colour": "red"})
    assert bad.status_code == 400 and "unknown field colour" in bad.json()["error"]

    # a read never runs the judge: before any calibration there is nothing stored to answer
    _check(document, "GET", "/api/calibration/{rubric}", get("/api/calibration/factuality"), 404)
    trial = _check(document, "POST", "/api/actions/calibrate", post("/api/actions/calibrate",
                                                                    {"rubric": "factuality", "mode": "off",
                                                                     "record": False}))
    assert trial["rubric"] == "factuality" and trial["items"] > 0 and trial["recorded"] is False
    _check(document, "GET", "/api/calibration/{rubric}", get("/api/calibration/factuality"), 404)
    recorded = _check(document, "POST", "/api/actions/calibrate", post("/api/actions/calibrate",
                                                                       {"rubric": "factuality", "mode": "off"}))
    assert recorded["recorded"] is True
    baseline = _check(document, "GET", "/api/calibration/{rubric}", get("/api/calibration/factuality"))
    assert baseline["kappa"] == recorded["kappa"] and baseline["judge_version"] == recorded["judge_version"]


def test_score_now_and_cluster_now_answer_their_summary_and_run_one_at_a_time(api):
    server, _, gate = api
    document = _document(server)
    post = lambda path, body: httpx.post(server.endpoint + path, json=body, headers=HEADERS, timeout=120)  # noqa: E731

    scored = _check(document, "POST", "/api/actions/score", post("/api/actions/score", {"all": True, "mode": "off"}))
    assert scored["scored_spans"] == 0 and scored["judge_version"]  # all scored by this judge already

    gate.release.clear()
    first: dict = {}
    # a new judge version judges stored spans only when asked: a rescore (the gate is another version)
    running = threading.Thread(target=lambda: first.update(answer=post("/api/actions/rescore", {"mode": "always"})))
    running.start()
    assert gate.entered.wait(30)
    busy = _check(document, "POST", "/api/actions/cluster", post("/api/actions/cluster", {"window": "7d"}), 409)
    assert busy["error"].startswith("rescore is already running")
    state = _check(document, "GET", "/api/actions", httpx.get(server.endpoint + "/api/actions", headers=HEADERS))
    assert state["running"] == "rescore" and state["last"]["rescore"]["running"] is True
    busy = _check(document, "POST", "/api/actions/score", post("/api/actions/score", {"mode": "off"}), 409)
    assert busy["error"].startswith("rescore is already running")
    gate.release.set()
    running.join(60)
    assert first["answer"].status_code == 200

    clustered = _check(document, "POST", "/api/actions/cluster", post("/api/actions/cluster", {"window": "3650d"}))
    assert clustered["failures"] > 0 and clustered["run_id"]
    runs = httpx.get(server.endpoint + "/api/runs", headers=HEADERS).json()
    assert runs[0]["run_id"] == clustered["run_id"]
    state = httpx.get(server.endpoint + "/api/actions", headers=HEADERS).json()
    assert state["running"] is None and state["last"]["cluster"]["result"]["run_id"] == clustered["run_id"]
    _check(document, "POST", "/api/actions/cluster", post("/api/actions/cluster", {"window": "soon"}), 400)
    _check(document, "POST", "/api/actions/score", post("/api/actions/score", {"rate": 2}), 400)
    no_csrf = httpx.post(server.endpoint + "/api/actions/score", json={}, headers={"origin": "http://evil.example"})
    assert no_csrf.status_code == 401  # neither token nor session: refused before any CSRF question


def test_an_action_started_without_waiting_reports_its_progress_and_its_result(api):
    server, _, gate = api
    document = _document(server)
    gate.release.clear()
    # the gate is another judge version: it judges the stored spans when asked to, by a rescore
    started = httpx.post(server.endpoint + "/api/actions/rescore", params={"wait": "false"},
                         json={"mode": "always"}, headers=HEADERS, timeout=30)
    state = _check(document, "POST", "/api/actions/rescore", started, 202)
    assert state["action"] == "rescore" and state["running"] is True
    assert gate.entered.wait(30)
    polled = _check(document, "GET", "/api/actions/{action}", httpx.get(server.endpoint + "/api/actions/rescore",
                                                                        headers=HEADERS, timeout=30))
    assert polled["running"] is True and polled["result"] is None
    gate.release.set()
    for _ in range(600):  # bounded: the pass scores four spans
        polled = httpx.get(server.endpoint + "/api/actions/rescore", headers=HEADERS, timeout=30).json()
        if not polled["running"]:
            break
        threading.Event().wait(0.1)
    assert polled["error"] is None and polled["result"]["scored_spans"] == 4
    assert polled["progress"]["stage"] == "rescoring"
