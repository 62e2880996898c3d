"""The Python API end to end, through the built extension."""

import json
import os

import pytest

import semhash_llm
from semhash_llm import Index, SemHashError, compare, dedup

FOX = "The quick brown fox jumps over the lazy dog near the river bank"
FOX_EDITED = "The quick brown fox jumped over the lazy dog near the river bank"
OTHER = "Compilers translate source code into machine code for a processor"
SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "data", "sample.jsonl")


def test_near_duplicates_share_a_cluster_and_ids_come_back_as_given():
    big = 18446744073709551615
    result = dedup([{"id": big, "text": FOX}, {"id": "b", "text": FOX_EDITED}, (7, OTHER)])
    rows = result.rows
    assert [r["id"] for r in rows] == [big, "b", 7]
    assert rows[1]["representative"] == big and rows[1]["parent"] == big
    assert rows[1]["relation"] == "near"
    assert rows[2]["relation"] == "none" and rows[2]["cluster"] != rows[0]["cluster"]
    assert result.stats["documents"] == 3 and result.skipped == []


def test_the_sample_corpus_agrees_with_the_command():
    docs = [json.loads(line) for line in open(SAMPLE, encoding="utf-8")]
    rows = dedup(docs).rows
    assert len(rows) == len(docs) == 174
    assert len({r["id"] for r in rows}) == 174
    duplicates = [r for r in rows if r["relation"] != "none"]
    assert duplicates, "the sample holds duplicates"
    by_id = {r["id"]: r for r in rows}
    for r in duplicates:
        assert by_id[r["representative"]]["relation"] == "none", "every member's representative is a representative"


def test_bad_records_stop_the_batch_naming_them():
    with pytest.raises(SemHashError, match=r"record 2 \(id \"1\"\): duplicate id \"1\" \(first seen on record 1\)"):
        dedup([{"id": 1, "text": FOX}, {"id": 1, "text": OTHER}])
    with pytest.raises(SemHashError, match=r"record 1 \(id \"a\"\): text is empty"):
        dedup([{"id": "a", "text": ""}])
    with pytest.raises(SemHashError, match=r"record 1: field \"id\" must be a string or an integer"):
        dedup([{"id": 1.5, "text": FOX}])
    with pytest.raises(SemHashError, match=r"record 1 \(id \"1\"\): missing text field \"body\""):
        dedup([{"id": 1, "text": FOX}], text_field="body")
    with pytest.raises(SemHashError, match=r"record 2 \(id \"b\"\): field \"text\" holds half a UTF-16 surrogate pair"):
        dedup([{"id": "a", "text": FOX}, {"id": "b", "text": "x \ud800 y"}])
    skipped = dedup([{"id": "\udc80", "text": FOX}, {"id": 2, "text": FOX}], on_error="skip").skipped
    assert [(s["position"], "surrogate" in s["error"]) for s in skipped] == [(1, True)]
    with pytest.raises(SemHashError, match="on_error must be"):
        dedup([{"id": 1, "text": FOX}], on_error="ignore")


def test_skipping_keeps_every_good_document_once():
    docs = [{"id": 1, "text": FOX}, {"id": "1", "text": OTHER}, {"id": 2, "text": None}, "junk", (3, OTHER)]
    result = dedup(docs, on_error="skip")
    assert [r["id"] for r in result.rows] == [1, 3]
    assert [(s["position"], s["id"]) for s in result.skipped] == [(2, "1"), (3, 2), (4, None)]
    assert "duplicate id" in result.skipped[0]["error"]


def test_pandas_and_arrow_in_and_out():
    pandas = pytest.importorskip("pandas")
    pyarrow = pytest.importorskip("pyarrow")
    frame = pandas.DataFrame({"doc": [10, 11, 12], "body": [FOX, FOX_EDITED, OTHER]})
    out = dedup(frame, id_field="doc", text_field="body").rows
    assert isinstance(out, pandas.DataFrame)
    assert out["parent"].tolist() == [None, 10, None], "integer ids stay integers"
    table = pyarrow.table({"id": ["a", "b"], "text": pyarrow.array([FOX, FOX], type=pyarrow.large_string())})
    out = dedup(table).rows
    assert isinstance(out, pyarrow.Table)
    assert out.column("relation").to_pylist() == ["none", "exact"]
    with pytest.raises(SemHashError, match="no column 'text'"):
        dedup(pandas.DataFrame({"id": [1]}))


def test_compare_says_why():
    near = compare(FOX, FOX_EDITED)
    assert near["duplicate"] and near["relation"] == "near"
    assert "char_sim" in near["signals"]
    assert not compare(FOX, OTHER)["duplicate"]
    apart = compare("Python SDK for AWS Eventbridge", "Python SDK for AWS Opensearch")
    assert not apart["duplicate"]
    assert [w for w, _ in apart["unmatched"]["a"]] == ["eventbridge"]
    assert [w for w, _ in apart["unmatched"]["b"]] == ["opensearch"]
    with pytest.raises(SemHashError):
        compare(FOX, "")
    with pytest.raises(SemHashError, match="surrogate"):
        compare(FOX, "\ud800")


def test_a_configuration_is_checked_and_used():
    config = semhash_llm.default_config()
    config["limits"]["max_doc_bytes"] = 20
    with pytest.raises(SemHashError, match="record 1"):
        dedup([(1, FOX)], config=config)
    with pytest.raises(SemHashError, match="invalid configuration|unknown field"):
        dedup([(1, FOX)], config={"decide": {"type": "lexical", "no_such_knob": 1}})
    with pytest.raises(SemHashError, match="semantic stage"):
        dedup([(1, FOX)], config={"semantic": {"enabled": True}})


def test_an_index_keeps_signatures_across_opens(tmp_path):
    store = tmp_path / "store"
    index = Index(store)
    assert index.add([{"id": 1, "text": FOX}, {"id": 2, "text": OTHER}]) == []
    assert len(index) == 2 and 1 in index and 3 not in index
    assert [m["id"] for m in index.query(FOX_EDITED)] == [1]
    with pytest.raises(SemHashError, match="already in the store"):
        index.add([(1, "Another text entirely about gardens and the rain")])
    index.add([(2**70, FOX.upper()), ("7", FOX + "!")])
    del index

    again = Index(store)
    assert len(again) == 4
    assert sorted(map(repr, (m["id"] for m in again.query(FOX_EDITED)))) == ["'7'", "1", repr(2**70)]
    assert again.remove([2, 99]) == [True, False]
    assert len(again) == 3


def test_one_writer_at_a_time(tmp_path):
    first = Index(tmp_path / "store")
    with pytest.raises(SemHashError, match=f"pid {os.getpid()}"):
        Index(tmp_path / "store", lock_timeout=0)
    del first


def test_a_store_of_another_configuration_is_refused(tmp_path):
    Index(tmp_path / "store").add([(1, FOX)])
    config = semhash_llm.default_config()
    config["sketch"]["char_ngram"] = 4
    with pytest.raises(SemHashError, match="different configuration"):
        Index(tmp_path / "store", config=config)
