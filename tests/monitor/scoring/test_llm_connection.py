"""One LLM connection, built once from settings, for the judge and the cluster namer."""

from sumwatch.monitor.issues.job import build_clusterer
from sumwatch.monitor.scoring.judges import build_llm, llm_connection
from sumwatch.monitor.settings import Settings


def test_the_judge_and_the_namer_share_the_connection_the_settings_describe():
    settings = Settings.from_env(env={"SUMWATCH_LLM_MODEL": "openai/gpt-4o-mini", "SUMWATCH_LLM_API_KEY": "k-1",
                                      "SUMWATCH_LLM_API_BASE": "http://127.0.0.1:9/v1",
                                      "SUMWATCH_LLM_CONCURRENCY": "5", "SUMWATCH_LLM_TIMEOUT_S": "7"})
    connection = llm_connection(settings)
    judge, namer = build_llm(settings), build_clusterer(settings).namer
    assert judge.config.connection == judge.client.connection == namer.llm.connection == connection
    assert (connection.model, connection.api_base, connection.concurrency, connection.timeout_s) == (
        "openai/gpt-4o-mini", "http://127.0.0.1:9/v1", 5, 7.0)
    assert (connection.max_retries, connection.backoff_s, connection.max_backoff_s) == (3, 0.5, 30.0)
    assert "k-1" not in repr(connection)


def test_no_model_means_no_connection_and_keyword_names():
    settings = Settings.from_env(env={})
    assert llm_connection(settings) is None and build_llm(settings) is None
    assert type(build_clusterer(settings).namer).__name__ == "KeywordNamer"
