"""The Datasets and Experiments pages rendered by the app in this process: the dataset list and a dataset's versions,
items and experiments; the experiment list and one experiment's rates and items; the comparison of two with its
verdict per rubric and the changed items side by side; a comparison refused in one line; and the issue page's
Make a dataset form behind the CSRF check."""

from __future__ import annotations

import html
import re

import pytest
from experiment_data import FIXED, ITEMS, LONG, RAISED, REGRESSED, experiments, issue, items, source
from starlette.testclient import TestClient

from sumwatch.monitor.datasets.versions import save_dataset
from sumwatch.monitor.store.datasets import find_version, latest_versions, version_items
from sumwatch.monitor.store.experiments import item_rows


@pytest.fixture
def app(store, settings):
    from sumwatch.monitor.runtime import Runtime
    from sumwatch.monitor.views.app import create_app

    return create_app(Runtime.build(settings, store))


@pytest.fixture
def made(store):
    return experiments(store)


@pytest.fixture
def client(app, made):
    with TestClient(app, base_url="http://localhost") as c:
        yield c


def _text(fragment: str) -> str:
    """What a reader sees of an HTML fragment: tags out, entities decoded, spaces squeezed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def _section(page: str, marker: str, end: str = "</table>") -> str:
    start = page.index(marker)
    return page[start:page.index(end, start)]


def _rows(page: str, attribute: str) -> dict[str, str]:
    """Each table row with ``attribute`` by its value: the row's text."""
    return {key: _text(body) for key, body in re.findall(rf'<tr {attribute}="([^"]+)"[^>]*>(.*?)</tr>', page, re.S)}


def test_the_navigation_links_both_pages(client):
    nav = _section(client.get("/").text, "<nav>", "</nav>")
    assert '<a href="/datasets">Datasets</a>' in nav and '<a href="/experiments">Experiments</a>' in nav
    datasets = _section(client.get("/datasets").text, "<nav>", "</nav>")
    assert '<a href="/datasets" class="active" aria-current="page">Datasets</a>' in datasets


def test_the_dataset_list_shows_each_dataset_at_its_latest_version(client):
    page = client.get("/datasets")
    assert page.status_code == 200
    rows = _rows(page.text, "data-dataset")
    assert list(rows) == ["buses", "letters"]
    assert rows["buses"].startswith(f"buses 2 {ITEMS} file:buses-2.jsonl")
    assert rows["buses"].endswith("3 four more cities")
    assert rows["letters"].startswith("letters 1 1 file:letters.jsonl")
    assert '<a href="/experiments?dataset=buses">3</a>' in page.text and 'href="/datasets/buses"' in page.text


def test_a_dataset_page_shows_its_versions_items_cut_to_fit_and_its_experiments(client, store):
    page = client.get("/datasets/buses").text
    assert "version 2 of 2" in page
    versions = _rows(_section(page, 'id="versions"'), "data-version")
    assert list(versions) == ["2", "1"] and "first cut" in versions["1"] and f" {ITEMS} " in versions["2"]
    shown = _rows(_section(page, 'id="items-table"'), "data-item")
    assert list(shown) == [i.item_id for i in version_items(store, "buses", 2)]
    assert "Does it say how many lines?" in shown["item-00"] and "fact: 14 new bus lines" in shown["item-00"]
    # the long source: cut in the table at a word, the whole of it behind the toggle
    row = _section(page, f'<tr data-item="{LONG}"', "</tr>")
    cell = _section(row, '<td class="item-source">', "<details>")
    assert "…" in cell and "THE-END-OF-THE-LONG-SOURCE" not in cell
    assert "THE-END-OF-THE-LONG-SOURCE" in _section(row, "<details>", "</details>")
    assert len(_text(cell)) < len(source(3)) / 2
    ran = _rows(_section(page, 'id="experiments"'), "data-experiment")
    assert set(ran) == {"base", "candidate", "rejudged"}  # not the one on another dataset
    assert 'href="/experiments/exp-0000000001"' in page

    older = client.get("/datasets/buses", params={"version": 1}).text
    assert "version 1 of 2" in older and '<a href="/datasets/buses">latest</a>' in older
    assert set(_rows(_section(older, 'id="items-table"'), "data-item")) == {f"item-{i:02d}" for i in range(20)}


def test_a_large_version_pages_its_items_by_the_next_link(client, store):
    save_dataset(store, "big", [i.model_copy(update={"item_id": f"x-{n:03d}"}) for n, i in enumerate(items(ITEMS) * 5)],
                 origin="test")
    total = find_version(store, "big").items
    seen, path = [], "/datasets/big"
    while path:
        page = client.get(path).text
        seen += list(_rows(_section(page, 'id="items-table"'), "data-item"))
        link = re.search(r'id="next-items" href="([^"]+)"', page)
        path = html.unescape(link.group(1)) if link else None
    assert total == 120 and len(seen) == total and len(set(seen)) == total
    assert "101–120 of 120" in page and "← first items" in page


@pytest.mark.parametrize("path, status, says", [
    ("/datasets/nothing-here", 404, "There is no dataset nothing-here."),
    ("/datasets/buses?version=9", 404, "Dataset buses has no version 9 (it has 1 to 2)."),
    ("/datasets/buses?version=0", 400, "version must be"),
    ("/datasets/buses?cursor=bm90LW1pbmU", 400, "cursor is not one this server gave"),
    ("/datasets/bad%20name!", 400, "a dataset name is 1 to 64 letters"),
    ("/experiments/never-ran", 404, "There is no experiment never-ran."),
    ("/experiments/base?page=2", 400, "page must be between 1 and 1, got 2"),
    ("/experiments/base/compare/never-ran", 404, "There is no experiment never-ran."),
])
def test_bad_addresses_get_a_page_that_says_what_is_wrong(client, path, status, says):
    answer = client.get(path)
    assert answer.status_code == status and answer.headers["content-type"].startswith("text/html")
    assert says in _text(_section(answer.text, '<p class="message">', "</p>")), _text(answer.text)


def test_the_experiment_list_is_newest_first_and_filters_by_dataset(client):
    rows = _rows(client.get("/experiments").text, "data-experiment")
    assert list(rows) == ["rejudged", "candidate", "base", "elsewhere"]
    assert "buses v2" in rows["base"] and f"{ITEMS} / {ITEMS}" in rows["base"] and "letters v1" in rows["elsewhere"]
    assert list(_rows(client.get("/experiments?dataset=letters").text, "data-experiment")) == ["elsewhere"]
    assert "No experiments on nothing yet" in _text(client.get("/experiments?dataset=nothing").text)


def test_an_experiment_page_shows_each_rubrics_rate_and_every_items_verdicts(client, store, made):
    page = client.get("/experiments/base").text
    rates = _rows(_section(page, 'id="rubric-rates"'), "data-rubric")
    judged = ITEMS - 1  # the item whose call raised has no summary to judge
    assert rates["factuality"] == f"factuality {(judged - 1) / judged:.1%} {judged - 1} {judged} 0 factuality@v1"
    assert rates["conciseness"] == f"conciseness 100.0% {judged} {judged} 0 conciseness@v1"
    figures = _text(_section(page, 'id="experiment-figures"', "</section>"))
    words = sum(len(i.source.split()) for i in items(ITEMS) if i.item_id != RAISED)
    assert f"Task tokens in / out {words} / {12 * judged}" in figures and "Errors 1" in figures
    lines = _rows(_section(page, 'id="items-table"'), "data-item")
    assert list(lines) == [f"item-{i:02d}" for i in range(ITEMS)]
    assert "RuntimeError: the model refused this one" in lines[RAISED]
    assert "41 new bus lines" in lines[FIXED[0]]
    assert "concise numerically wrong" in lines[FIXED[0]]  # each rubric's column, in the rates' order
    call = item_rows(store, made["base"].experiment_id)["item-01"]
    assert f'href="/traces/{call.trace_id}#span-{call.span_id}"' in page
    choices = re.findall(r'<option value="([^"]+)">', _section(page, 'id="compare-form"', "</form>"))
    assert choices == [made["rejudged"].experiment_id, made["candidate"].experiment_id]  # same dataset, not itself


def test_the_compare_form_goes_on_to_the_comparisons_address(client, made):
    answer = client.get("/experiments/base/compare", params={"candidate": "candidate"}, follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/experiments/base/compare/candidate"
    assert client.get("/experiments/base/compare", params={"candidate": ""}).status_code == 400


def test_the_comparison_gives_each_rubrics_verdict_and_the_changed_items_side_by_side(client):
    page = client.get("/experiments/base/compare/candidate").text
    paired = ITEMS - 1
    rows = _rows(_section(page, 'id="rubric-comparison"'), "data-rubric")
    base, cand = (paired - 1) / paired, (paired - 1 - len(REGRESSED) + 1) / paired
    assert rows["factuality"].startswith(f"factuality {paired} +1 {base:.1%} {cand:.1%} {(cand - base) * 100:+.1f} pts")
    assert rows["factuality"].endswith(f"REGRESSION {len(REGRESSED)} {len(FIXED)}")
    assert rows["conciseness"].endswith("+0.0 pts +0.0 pts to +0.0 pts 1.000 no change 0 0")
    assert "REGRESSION on factuality" in _text(_section(page, 'id="verdict"', "</p>"))
    regressed, fixed = page[page.index('id="regressed"'):page.index('id="fixed"')], page[page.index('id="fixed"'):]
    cards = re.findall(r'<article class="example item-diff regressed" data-item="([^"]+)" data-rubric="factuality">',
                       regressed)
    assert cards == list(REGRESSED)
    card = _section(page, '<article class="example item-diff regressed" data-item="item-00"', "</article>")
    source_side, base_side, candidate_side = re.findall(r'<section class="text (?:source|summary)">(.*?)</section>',
                                                        card, re.S)
    assert "approved <mark>14 new bus lines</mark> on Tuesday" in source_side
    assert "Base: base" in _text(base_side) and "approved 14 new bus lines." in _text(base_side)
    assert "approved <mark>41 new bus lines</mark>." in candidate_side
    assert 'Evidence summary: "41 new bus lines" | source: "14 new bus lines"' in _text(candidate_side)
    assert re.findall(r'item-diff fixed" data-item="([^"]+)"', fixed) == list(FIXED)


@pytest.mark.parametrize("other, says", [
    ("rejudged", "factuality was judged by factuality@v1 in base and by factuality@v2 in rejudged: run the older "
                 "one again under a new --name"),
    ("elsewhere", "base ran dataset 'buses' and elsewhere ran 'letters': an experiment compares with one on the "
                  "same dataset"),
])
def test_a_comparison_that_cannot_be_made_is_refused_in_one_line(client, other, says):
    answer = client.get(f"/experiments/base/compare/{other}")
    assert answer.status_code == 409 and "<h1>409 · Conflict</h1>" in answer.text
    message = _text(_section(answer.text, '<p class="message">', "</p>"))
    assert message.startswith(says) and "Traceback" not in answer.text


def _csrf(client, path: str) -> str:
    page = client.get(path).text
    token = client.cookies["sumwatch_csrf"]
    assert f'<input type="hidden" name="csrf_token" value="{token}">' in _section(page, 'id="dataset-form"', "</form>")
    return token


def test_make_a_dataset_on_the_issue_page_builds_a_version_of_its_members(client, store):
    issue(store)
    form = _section(client.get("/issues/SW-1").text, 'id="dataset-form"', "</form>")
    assert 'method="post" action="/issues/SW-1/dataset"' in form and 'name="name"' in form and 'value="sw-1"' in form
    origin = {"origin": "http://localhost"}
    refused = client.post("/issues/SW-1/dataset", data={"name": "sw-1"}, headers=origin)
    assert refused.status_code == 403 and find_version(store, "sw-1") is None
    token = _csrf(client, "/issues/SW-1")
    made = client.post("/issues/SW-1/dataset", data={"name": "sw-1", "csrf_token": token}, headers=origin,
                       follow_redirects=False)
    assert made.status_code == 303 and made.headers["location"] == "/datasets/sw-1?version=1&made=new"
    version = find_version(store, "sw-1")
    assert (version.version, version.items, version.origin) == (1, 3, "issue:SW-1")
    page = client.get(made.headers["location"]).text
    assert "Version 1 made from issue:SW-1: 3 items." in _text(_section(page, 'id="made-notice"', "</p>"))
    assert page.count(">its trace</a>") == 3 and "factuality numerically wrong" in page
    again = client.post("/issues/SW-1/dataset", data={"name": "sw-1", "csrf_token": token}, headers=origin,
                        follow_redirects=False)
    assert again.headers["location"] == "/datasets/sw-1?version=1&made=same"
    assert "No version made" in client.get(again.headers["location"]).text


@pytest.mark.parametrize("issue_id, name, status, says", [
    ("SW-1", "bad name!", 400, "a dataset name is 1 to 64 letters, digits, '_', '-' or '.', starting with a letter or "
                               "digit, got 'bad name!'"),
    ("SW-1", "", 400, "a dataset name is 1 to 64 letters"),
    ("SW-9", "sw-9", 404, "There is no issue SW-9 in a finished clustering run."),
])
def test_a_bad_name_or_issue_gets_the_one_line_refusal(client, store, issue_id, name, status, says):
    issue(store)
    token = _csrf(client, "/issues/SW-1")
    answer = client.post(f"/issues/{issue_id}/dataset", data={"name": name, "csrf_token": token},
                         headers={"origin": "http://localhost"}, follow_redirects=False)
    assert answer.status_code == status and answer.headers["content-type"].startswith("text/html")
    assert _text(_section(answer.text, '<p class="message">', "</p>")).startswith(says)
    assert [v.name for v in latest_versions(store)] == ["buses", "letters"]  # nothing made


def test_empty_pages_say_what_to_do(store, settings, app):
    with TestClient(app, base_url="http://localhost") as c:
        assert "No datasets yet." in c.get("/datasets").text
        assert "No experiments yet" in _text(c.get("/experiments").text)
