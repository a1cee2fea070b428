"""Finding the server that holds an embedded database from its lock file alone: the lock, not the text, says
whether anyone holds it."""

import fcntl
import json
import os

from sumwatch.monitor.contract.server import LOCK_NAME, held, read_holder, serving_api


def hold(folder, info):
    fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.write(fd, json.dumps(info).encode())
    return fd


def test_a_held_folder_names_the_api_of_its_holder(tmp_path):
    fd = hold(tmp_path, {"pid": 42, "command": "sumwatch up", "api": "http://127.0.0.1:4318"})
    try:
        assert held(tmp_path)
        assert serving_api(tmp_path) == "http://127.0.0.1:4318"
        assert read_holder(tmp_path)["command"] == "sumwatch up"
    finally:
        os.close(fd)
    assert not held(tmp_path)  # the lock went with the process (here: the descriptor)
    assert serving_api(tmp_path) is None  # the text a killed server left behind names nobody


def test_a_holder_without_an_api_or_no_lock_file_at_all_is_no_server(tmp_path):
    assert serving_api(tmp_path) is None and read_holder(tmp_path) == {}
    fd = hold(tmp_path, {"pid": 42, "command": "sumwatch worker", "api": None})
    try:
        assert held(tmp_path) and serving_api(tmp_path) is None
    finally:
        os.close(fd)


def test_unreadable_text_is_no_holder(tmp_path):
    (tmp_path / LOCK_NAME).write_text("{not json")
    assert read_holder(tmp_path) == {}
    (tmp_path / LOCK_NAME).write_text("[1, 2]")
    assert read_holder(tmp_path) == {}
