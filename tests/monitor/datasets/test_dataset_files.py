"""Dataset files in all three formats: good lines become items, each bad line (or row) is reported with its number
and why, and a file that cannot be read at all is one line."""

import io
import json

import pytest

from sumwatch.monitor.contract.datasets import DatasetItem, ItemLine, item_id_for
from sumwatch.monitor.datasets.files import FileError, read_file


def jsonl(*lines) -> bytes:
    return "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines).encode()


def test_json_lines_keep_the_good_lines_and_number_the_bad_ones():
    body = jsonl({"id": "a1", "source": "Doc one.", "reference": "One.", "expected_facts": ["one", " "],
                  "questions": ["Is it one?"], "band": "tldr", "metadata": {"topic": "x", "n": 3}},
                 {"source": "Doc two."},
                 "",
                 "{not json",
                 [1, 2],
                 {"source": "   "},
                 {"source": "Doc three.", "refrence": "typo"},
                 {"source": "Doc four.", "band": "long"},
                 {"source": "Doc five.", "expected_facts": "one fact"},
                 {"id": "a1", "source": "Another doc."},
                 {"source": "Doc two."})
    parsed = read_file(body, "jsonl")
    assert parsed.items == [
        DatasetItem(item_id="a1", source="Doc one.", reference="One.", expected_facts=("one",),
                    questions=("Is it one?",), band="tldr", metadata={"topic": "x", "n": "3"}),
        DatasetItem(item_id=item_id_for("Doc two."), source="Doc two.")]
    assert parsed.skipped == [
        (4, "not JSON (Expecting property name enclosed in double quotes)"),
        (5, "expected a JSON object, got a list"),
        (6, "source: blank (an item needs text to summarize)"),
        (7, "unknown field refrence"),
        (8, "band must be one of 'tldr', 'exec_summary', 'abstract', 'action_recap' or 'custom', got 'long'"),
        (9, "expected_facts must be a list, got 'one fact'"),
        (10, "the same id as line 1"),
        (11, "the same source (an item without an id is known by its source) as line 2")]
    assert parsed.lines == 10  # the blank line is not one


def test_an_items_id_is_the_files_or_a_hash_of_its_source_the_same_every_time():
    one = read_file(jsonl({"source": "Doc."}, {"id": 7, "source": "Other."}), "jsonl").items
    again = read_file(jsonl({"source": "Doc."}), "jsonl").items
    assert one[0].item_id == again[0].item_id == item_id_for("Doc.") and len(one[0].item_id) == 20
    assert one[1].item_id == "7"  # a spreadsheet's number id is its digits


def test_csv_rows_read_lists_and_metadata_columns_and_report_rows_by_the_line_they_start_on():
    body = ('id,source,expected_facts,questions,band,metadata,metadata.topic\n'
            '1,"A source\nover two lines",["12%"],"Does it say 12%?\nDoes it name the council?",tldr,"{""k"": ""v""}",'
            'parks\n'
            '2,,,,,,\n'
            '\n'
            '3,Another source,,,,not json,\n'
            '4,"x,y"\n'
            '5,Fine source,,,,,\n').encode("utf-8-sig")
    parsed = read_file(body, "csv")
    assert parsed.items == [
        DatasetItem(item_id="1", source="A source\nover two lines", expected_facts=("12%",),
                    questions=("Does it say 12%?", "Does it name the council?"), band="tldr",
                    metadata={"k": "v", "topic": "parks"}),
        DatasetItem(item_id="5", source="Fine source")]
    # the first row holds two line breaks: it takes lines 2 to 4
    assert parsed.skipped == [(5, "source: blank (an item needs text to summarize)"),
                              (7, 'metadata must be a JSON object (like {"topic": "markets"})'),
                              (8, "2 fields where the header has 7")]


@pytest.mark.parametrize(("body", "problem"), [
    (b"source,title\nA,B\n", "the CSV header has unknown column(s) 'title'; the columns are id, source,"),
    (b"id,reference\n1,x\n", "the CSV header has no source column"),
    (b"source,source\nA,B\n", "the CSV header names column(s) 'source' more than once"),
    ("source\nCaf\xe9\n".encode("latin-1"), "a CSV file must be UTF-8 text: byte 11 is not"),
])
def test_a_csv_file_that_cannot_be_read_is_one_line(body, problem):
    with pytest.raises(FileError) as refused:
        read_file(body, "csv")
    assert str(refused.value).startswith(problem) and "\n" not in str(refused.value)


def test_a_broken_csv_quote_keeps_the_rows_before_it():
    parsed = read_file(b'source\nGood one\n"never closed\n', "csv")
    assert [i.source for i in parsed.items] == ["Good one"]
    assert parsed.skipped == [(3, "the CSV breaks here (unexpected end of data); the rest of the file was not read")]


def _parquet(table) -> bytes:
    import pyarrow.parquet as pq

    out = io.BytesIO()
    pq.write_table(table, out)
    return out.getvalue()


def test_parquet_rows_read_list_and_map_columns_and_are_numbered_from_one():
    import pyarrow as pa

    table = pa.table({
        "id": [1, 2, 3, 4],
        "source": ["Doc A", None, "Doc C", "Doc D"],
        "expected_facts": [["a fact"], None, None, None],
        "questions": ['["Is it A?"]', None, None, None],
        "metadata": pa.array([[("k", "v")], None, None, None], type=pa.map_(pa.string(), pa.string())),
        "band": ["abstract", None, "exec_summary", "huge"],
    })
    parsed = read_file(_parquet(table), "parquet")
    assert parsed.items == [
        DatasetItem(item_id="1", source="Doc A", expected_facts=("a fact",), questions=("Is it A?",), band="abstract",
                    metadata={"k": "v"}),
        DatasetItem(item_id="3", source="Doc C", band="exec_summary")]
    assert [(n, reason.split(",")[0]) for n, reason in parsed.skipped] == [
        (2, "source is required"), (4, "band must be one of 'tldr'")]


def test_a_file_that_is_not_parquet_or_lacks_a_source_column_is_one_line():
    import pyarrow as pa

    with pytest.raises(FileError, match="^not a Parquet file this server can read: "):
        read_file(b"PAR1 not really", "parquet")
    with pytest.raises(FileError, match="^the Parquet file has no source column"):
        read_file(_parquet(pa.table({"reference": ["x"]})), "parquet")
    with pytest.raises(FileError, match="^format must be one of jsonl, csv, parquet, got 'xlsx'"):
        read_file(b"", "xlsx")


def test_an_items_line_reads_back_as_the_same_item():
    item = DatasetItem(item_id="x", source=" Keep  spacing \n", reference="Ref.", expected_facts=("f",),
                       questions=("q?",), band="custom", metadata={"a": "b"})
    assert ItemLine.model_validate(json.loads(item.json_line())).item() == item
    bare = DatasetItem(item_id=item_id_for("S"), source="S")
    assert bare.line() == {"id": bare.item_id, "source": "S"}
