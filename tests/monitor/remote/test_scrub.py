"""Secrets a remote echoes back, in each form it may echo them, come out of error texts."""

import base64

import pytest

from sumwatch.monitor.remote.scrub import Scrubber

JIRA_EMAIL, JIRA_TOKEN = "bot@example.com", "ATATT-jira-token-123"
SLACK = "https://hooks.slack.com/services/T0001/B0002/XyZsecretPart42"
WEBHOOK = "https://hooks.example.com/in/7f3a9c0d?sig=abcdef123456"


@pytest.fixture
def scrub():
    return Scrubber(["sk-provider-key-123", SLACK, WEBHOOK], basic=[(JIRA_EMAIL, JIRA_TOKEN)])


def test_basic_credentials_are_scrubbed_in_their_base64_form(scrub):
    encoded = base64.b64encode(f"{JIRA_EMAIL}:{JIRA_TOKEN}".encode()).decode()
    echoed = f'401 {{"error": "bad request", "headers": {{"Authorization": "Basic {encoded}"}}}}'
    clean = scrub(echoed)
    assert encoded not in clean and JIRA_TOKEN not in clean and "Basic [secret]" in clean
    assert encoded not in scrub(f"credentials {encoded} refused")  # known, so also without the word Basic
    # credentials nobody configured, and a password alone, go too
    assert Scrubber()("Authorization: Basic dXNlcjpwYXNzd29yZA==") == "Authorization: Basic [secret]"
    assert JIRA_TOKEN not in scrub(f"token {JIRA_TOKEN} expired")


def test_slack_and_webhook_urls_lose_their_secret_part(scrub):
    assert scrub(f"POST {SLACK} failed") == "POST [secret] failed"
    assert scrub("no_team for /services/T0001/B0002/XyZsecretPart42") == "no_team for [secret]"
    # an unconfigured Slack hook keeps its host, so the message still says where it went
    assert Scrubber()("POST https://hooks.slack.com/services/T9/B9/other99 404") == (
        "POST https://hooks.slack.com/services/[secret] 404")
    encoded = "https%3A%2F%2Fhooks.example.com%2Fin%2F7f3a9c0d%3Fsig%3Dabcdef123456"  # as a redirect parameter
    clean = scrub(f"404 Not Found: /in/7f3a9c0d?sig=abcdef123456 and {encoded}")
    assert "7f3a9c0d" not in clean and "abcdef123456" not in clean


def test_tokens_and_passwords_in_urls_are_scrubbed_by_shape():
    scrub = Scrubber()
    for secret, text in (("ghp_abcdefgh123456", "Bad credentials for ghp_abcdefgh123456"),
                         ("xoxb-1234-abcdefgh", "invalid_auth xoxb-1234-abcdefgh"),
                         ("lin_api_abcdef123456", "key lin_api_abcdef123456 revoked"),
                         ("sk-abcdefghij123", "Incorrect API key provided: sk-abcdefghij123"),
                         ("eyJhbGciOi.J9.x1", "Authorization: Bearer eyJhbGciOi.J9.x1"),
                         ("pw-secret-9", "GET http://u:pw-secret-9@db:8123/ failed"),
                         ("pw-secret-9", "GET http://db:8123/?user=u&password=pw-secret-9 failed"),
                         ("tok-123456", "GET https://api.example.com/v1?access_token=tok-123456&x=1")):
        clean = scrub(text)
        assert secret not in clean and "[secret]" in clean, clean


def test_ordinary_words_are_left_alone():
    text = "401 Unauthorized: Basic realm=\"jira\"; Bearer authentication required; token expired"
    assert Scrubber(["abc"])(text) == text  # and a 3-letter "secret" would blank out words: ignored
    assert "sk-provider" not in repr(Scrubber(["sk-provider-key-123"]))
