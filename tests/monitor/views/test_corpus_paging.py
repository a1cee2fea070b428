"""GET /api/corpus pages like the other listings: ``limit`` and ``cursor``, the next page in ``next_cursor``,
``X-Next-Cursor`` and ``Link``; the client walks every page, and `sumwatch corpus export` takes them all."""

import httpx

from sumwatch.monitor.runtime import Runtime
from sumwatch.monitor.views.app import create_app
from sumwatch.monitor.views.client import ApiClient

TOKEN = "s3cret-token"


def test_the_corpus_is_walked_page_by_page_each_item_once(seeded_store):
    # the seeded store's corpus: seven factuality items that need a label
    app = create_app(Runtime.build(seeded_store.settings.with_(api_token=TOKEN), seeded_store))
    with ApiClient.in_process(app, TOKEN) as client:
        first = client.corpus(rubric="factuality", status="needs_label", limit=3)
        assert (first.total, len(first.items)) == (7, 3) and first.next_cursor
        seen, page = [i.item_id for i in first.items], first
        while page.next_cursor:
            page = client.corpus(rubric="factuality", status="needs_label", limit=3, cursor=page.next_cursor)
            assert page.total == 7
            seen += [i.item_id for i in page.items]
        assert len(seen) == len(set(seen)) == 7
        walked = client.corpus_items(rubric="factuality", status="needs_label")
        assert sorted(i.item_id for i in walked) == sorted(seen)


def test_the_next_page_is_in_the_headers_and_a_strange_cursor_is_one_line(served):
    server, _ = served
    with httpx.Client(base_url=server.endpoint, headers={"authorization": f"Bearer {TOKEN}"}) as http:
        answer = http.get("/api/corpus", params={"limit": 1})
        body = answer.json()
        assert body["total"] > 1 and len(body["items"]) == 1
        assert answer.headers["x-next-cursor"] == body["next_cursor"]
        assert answer.headers["link"].endswith('>; rel="next"') and "cursor=" in answer.headers["link"]
        nxt = http.get(answer.headers["link"][1:answer.headers["link"].index(">")]).json()
        assert nxt["items"][0]["item_id"] != body["items"][0]["item_id"]
        bad = http.get("/api/corpus", params={"cursor": "not-a-cursor"})
    assert bad.status_code == 422 and bad.json()["error"].startswith("cursor is not one this server gave")
