"""Opening the store: the embedded folder is made only inside a folder that exists, with plain errors."""

import subprocess
import sys
import textwrap

import pytest
from hang_guard import HANG_GUARD_S

from sumwatch.monitor.settings import Settings
from sumwatch.monitor.store.connection import Store, StoreError


@pytest.mark.parametrize("where", ["url", "home"])
def test_a_missing_parent_folder_is_an_error_and_nothing_is_created(tmp_path, where):
    target = tmp_path / "no" / "such" / "dir"
    settings = (Settings.from_env(env={}, clickhouse_url=f"chdb://{target}") if where == "url"
                else Settings.from_env(env={}, home=target))
    with pytest.raises(StoreError, match=f"the folder {tmp_path / 'no' / 'such'} does not exist") as caught:
        Store.open(settings)
    assert "\n" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_a_file_where_a_folder_belongs_is_an_error(tmp_path):
    (tmp_path / "home").write_text("not a folder")
    with pytest.raises(StoreError, match=f"{tmp_path / 'home'} is a file, not a folder"):
        Store.open(Settings.from_env(env={}, home=tmp_path / "home"))


@pytest.mark.integration
def test_a_chdb_url_creates_only_its_last_folder_and_locks_it(tmp_path):
    # chDB holds one data directory per process: this one runs in a process of its own
    code = textwrap.dedent(f"""
        from pathlib import Path
        from sumwatch.monitor.settings import Settings
        from sumwatch.monitor.store.connection import Store
        settings = Settings.from_env(env={{}}, clickhouse_url="chdb://{tmp_path}/db",
                                     home=Path({str(tmp_path / 'home')!r}))
        with Store.open(settings) as s:
            print(s.query_rows("SELECT 41 + 1")[0][0])
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert out.stdout.strip() == "42", out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db"]  # the home folder is not made
    assert (tmp_path / "db" / "sumwatch.lock").exists()


def test_a_password_in_the_urls_query_is_sent_as_credentials_and_never_shown():
    """ClickHouse takes ``?user=u&password=p``: the store logs in with them and no message shows the password."""
    import base64
    import http.server
    import threading

    from sumwatch.monitor.settings import redact_url
    from sumwatch.monitor.store.connection import StoreUnavailableError

    seen = []

    class ClickHouseRefusing(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            seen.append((self.path, self.headers.get("authorization")))
            self.rfile.read(int(self.headers.get("content-length") or 0))
            refusal = b"Code: 516. DB::Exception: u: Authentication failed. (AUTHENTICATION_FAILED)"
            self.send_response(403)
            self.send_header("content-length", str(len(refusal)))
            self.end_headers()
            self.wfile.write(refusal)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), ClickHouseRefusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/?user=u&password=pw-secret-9"
        settings = Settings.from_env(env={}, clickhouse_url=url)
        with pytest.raises(StoreUnavailableError) as caught:
            Store.open(settings)
    finally:
        server.shutdown()
    assert seen and seen[0][1] == "Basic " + base64.b64encode(b"u:pw-secret-9").decode()  # it logged in
    assert "password" not in seen[0][0]  # not sent again as a setting
    message = str(caught.value)
    assert "Authentication failed" in message and "pw-secret-9" not in message
    assert settings.safe_url.endswith("/?user=u&password=***")
    assert redact_url("https://u:p@h:8443/db?password=p2&x=1") == "https://u:***@h:8443/db?password=***&x=1"
