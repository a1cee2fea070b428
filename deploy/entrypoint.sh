#!/bin/sh
# The image's entrypoint. `sampler` and `clusterer` are long-running roles; anything else runs as given
# (the default: `sumwatch up`).
#
#   sampler     `sumwatch sample --shard i/N` every SUMWATCH_SAMPLER_INTERVAL_S seconds (default 60).
#               N is SHARD_COUNT; i is SHARD_INDEX, or the ordinal at the end of POD_NAME (a StatefulSet
#               pod `sumwatch-sampler-2` is shard 2), or of the host name. Extra arguments go to `sample`.
#   clusterer   `sumwatch cluster` every CLUSTER_EVERY_S seconds (default 1800): for compose; Kubernetes
#               runs `sumwatch cluster` from a CronJob instead.
# Both touch /tmp/sumwatch-alive after each pass (the liveness probe's heartbeat) and stop on SIGTERM.
set -eu

child=""
stop() {
    [ -n "$child" ] && kill -TERM "$child" 2>/dev/null && wait "$child" || true
    exit 0
}
trap stop TERM INT

every() {  # every SECONDS COMMAND...: run, heartbeat, sleep; a failed pass is logged and retried
    seconds="$1"; shift
    while :; do
        "$@" & child=$!
        if wait "$child"; then touch /tmp/sumwatch-alive; else echo "sumwatch: '$*' failed; again in ${seconds}s" >&2; fi
        sleep "$seconds" & child=$!
        wait "$child" || true
    done
}

case "${1:-}" in
    sampler)
        shift
        count="${SHARD_COUNT:-1}"
        index="${SHARD_INDEX:-${POD_NAME:-$(hostname)}}"
        index="${index##*-}"
        case "$count$index" in
            ''|*[!0-9]*) echo "sampler: SHARD_COUNT '$count' and the shard index '$index' must be numbers (set SHARD_INDEX or POD_NAME)" >&2; exit 2 ;;
        esac
        if [ "$index" -ge "$count" ]; then
            echo "sampler: shard $index is not below SHARD_COUNT $count: the replicas and SHARD_COUNT disagree" >&2
            exit 2
        fi
        echo "sampler: shard $index/$count" >&2
        every "${SUMWATCH_SAMPLER_INTERVAL_S:-60}" sumwatch sample --shard "$index/$count" "$@"
        ;;
    clusterer)
        shift
        every "${CLUSTER_EVERY_S:-1800}" sumwatch cluster "$@"
        ;;
    *)
        exec "$@"
        ;;
esac
