"""One place answers every refusal: ``install_error_handlers`` renders a page's refusal (an ApiError, a
parameter pydantic refused, a ValueError of its builder, a path or method the server does not have) with the
dashboard's error page, and the API's, or a request that asks for JSON, as ``{"error": ...}``."""

from fastapi import APIRouter, FastAPI
from fastapi.testclient import TestClient
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from sumwatch.monitor.views.errors import ApiError, PageRoute, install_error_handlers


def _problem(request: Request, status: int, message: str) -> Response:
    return HTMLResponse(f"<h1>{status}</h1><p>{message}</p>", status_code=status)


def _client() -> TestClient:
    app = FastAPI()
    install_error_handlers(app, _problem)
    pages = APIRouter(route_class=PageRoute)
    api = APIRouter(prefix="/api")

    @pages.get("/things/{number}")
    def thing(number: int, size: int = 1) -> Response:
        if number == 0:
            raise ApiError(404, "There is no thing 0.")
        if number == 1:
            raise ValueError("thing 1 is of the wrong form")
        return HTMLResponse("a thing")

    @pages.post("/things/{number}/do")
    def do(number: int) -> Response:
        return HTMLResponse("done")

    @api.get("/things/{number}")
    def api_thing(number: int) -> dict[str, int]:
        raise ApiError(404, f"no thing {number}")

    app.include_router(pages, include_in_schema=False)
    app.include_router(api)
    return TestClient(app)


def test_a_pages_refusal_is_the_error_page_with_its_status_and_message():
    client = _client()
    assert client.get("/things/2").text == "a thing"
    for path, status, message in [("/things/0", 404, "There is no thing 0."),
                                  ("/things/1", 400, "thing 1 is of the wrong form"),
                                  ("/things/two", 400, "number must be a whole number, got 'two'"),
                                  ("/things/2?size=big", 400, "size must be a whole number, got 'big'"),
                                  ("/elsewhere", 404, "There is no page /elsewhere.")]:
        answer = client.get(path)
        assert (answer.status_code, answer.text) == (status, f"<h1>{status}</h1><p>{message}</p>"), path
    wrong = client.get("/things/2/do")
    assert (wrong.status_code, wrong.headers["allow"]) == (405, "POST") and "does not take GET" in wrong.text


def test_the_apis_refusals_stay_json_and_a_page_answers_json_to_who_asks_for_it():
    client = _client()
    assert client.get("/api/things/3").json() == {"error": "no thing 3"}
    assert client.get("/api/things/three").json() == {"error": "number must be a whole number, got 'three'"}
    assert client.get("/api/elsewhere").json() == {"error": "not found"}
    assert client.get("/v1/elsewhere").json() == {"error": "not found"}
    asked = client.get("/things/0", headers={"accept": "application/json"})
    assert (asked.status_code, asked.json()) == (404, {"error": "There is no thing 0."})


def test_a_405_allows_every_method_the_path_takes_not_only_the_first_routes():
    app = FastAPI()
    install_error_handlers(app)
    things = APIRouter()
    things.add_api_route("/api/stack", lambda: "pushed", methods=["POST"])
    things.add_api_route("/api/stack", lambda: "listed", methods=["GET"])
    app.include_router(things)
    answer = TestClient(app).put("/api/stack")
    assert (answer.status_code, answer.headers["allow"]) == (405, "GET, POST")
    assert answer.json() == {"error": "Method Not Allowed"}
