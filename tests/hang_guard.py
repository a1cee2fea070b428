"""How long a test waits on a child process before calling it hung.

A loaded machine (two shared cores, other suites beside ours) can run a step ten times slower than an idle
one, so no test races the clock on a subprocess: waits take this guard, far beyond any normal run, and a test
that cares how long something took measures it and reports the figure.

    subprocess.run(cmd, capture_output=True, text=True, timeout=HANG_GUARD_S)
"""

HANG_GUARD_S = 30 * 60
