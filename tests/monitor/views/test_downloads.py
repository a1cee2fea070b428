"""A streamed download: the bytes as written, and an export that stops when its reader goes away."""

import threading

from sumwatch.monitor.views.downloads import stream


def test_the_bytes_come_as_written_and_a_reader_that_leaves_stops_the_export():
    assert b"".join(stream(lambda out: out.write(b"a\n") + out.write(b"b\n"), "t")) == b"a\nb\n"
    stopped = threading.Event()

    def endless(out):
        try:
            while True:
                out.write(b"x" * 1000)
        finally:
            stopped.set()

    chunks = stream(endless, "endless")
    assert next(chunks) == b"x" * 1000
    chunks.close()  # the client went away after the first chunk
    assert stopped.wait(60)  # the export's thread ended instead of blocking on a full queue for ever
