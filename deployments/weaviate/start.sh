#!/usr/bin/env bash
# Start (or stop) one local Weaviate server for Cairn, without Docker.
#
#   eval "$(deployments/weaviate/start.sh)"    # builds it first if needed (build.sh); exports
#                                              # WEAVIATE_URL, WEAVIATE_GRPC_PORT, WEAVIATE_PID
#   deployments/weaviate/start.sh stop         # stops the server this script started, nothing else
#
# Options: --dir DIR (its pid file, log and data; default ${TMPDIR:-/tmp}/cairn-weaviate-$UID),
# --data DIR (PERSISTENCE_DATA_PATH; default DIR/data), --port N (REST; default a free port),
# --binary PATH (default: build.sh's cached build). CAIRN_WEAVIATE_START_TIMEOUT (seconds, default
# 120) bounds the wait for readiness.
#
# What it promises, and why:
# - Telemetry is always off (DISABLE_TELEMETRY=true): with it on, the server probes cloud metadata
#   addresses to learn where it runs. API-based modules (which call model providers) are off too,
#   and no module is enabled: Cairn sends its own vectors.
# - Everything Weaviate lets us place is on 127.0.0.1: REST (--host), gossip and Raft
#   (CLUSTER_BIND_ADDR), and the Go profiler is off. Weaviate 1.39.0 itself binds its gRPC API
#   (GRPC_PORT) and its internal cluster API (CLUSTER_DATA_BIND_PORT) to every interface (its code
#   listens on ":PORT", with no setting): on a shared network, firewall those ports or run the
#   server where only you can reach it. docs/weaviate.md says more.
# - Every port is a free one (none of Weaviate's fixed defaults: 8080, 50051, 7946-7947, 8300-8301),
#   so several servers (test sessions) can run side by side.
# - `stop` stops only the process whose id this script wrote, and only if it is still that
#   weaviate-server.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
PYTHON="${PYTHON:-python3}"
RUN_DIR="${TMPDIR:-/tmp}/cairn-weaviate-$(id -u)"
DATA=""
PORT=""
BINARY=""
TIMEOUT="${CAIRN_WEAVIATE_START_TIMEOUT:-120}"

say() { echo "start.sh: $*" >&2; }

parse_args() {
    ACTION=start
    while [ $# -gt 0 ]; do
        case "$1" in
            start | stop) ACTION="$1" ;;
            --dir) RUN_DIR="$2"; shift ;;
            --data) DATA="$2"; shift ;;
            --port) PORT="$2"; shift ;;
            --binary) BINARY="$2"; shift ;;
            -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
            *) say "unknown argument $1 (see --help)"; exit 2 ;;
        esac
        shift
    done
    PID_FILE="$RUN_DIR/weaviate.pid"
    ENV_FILE="$RUN_DIR/weaviate.env"
    LOG="$RUN_DIR/weaviate.log"
}

# Whether a pid is a live weaviate-server (an exited one's cmdline is empty; a pid can be reused).
is_weaviate() {
    [ -n "$1" ] && [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q "weaviate-server"
}

# The recorded process, if it is still the server this script started.
running_pid() {
    local pid
    [ -f "$PID_FILE" ] || return 1
    pid="$(cat "$PID_FILE")"
    is_weaviate "$pid" || return 1
    echo "$pid"
}

# Free TCP ports on 127.0.0.1, all held open together so that none repeats: REST, gRPC, and two
# pairs (gossip, gossip + 1) and (Raft, Raft + 1). Weaviate on one host (CLUSTER_IN_LOCALHOST)
# reaches a node's Raft RPC at its Raft port + 1, and its data port falls back to gossip + 1.
free_ports() {
    "$PYTHON" - <<'PY'
import socket

held = []

def grab(port=0):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        s.close()
        return None
    held.append(s)
    return s.getsockname()[1]

def pair():
    while True:
        first = grab()
        if grab(first + 1) if first < 65535 else None:
            return [first, first + 1]

ports = [grab(), grab(), *pair(), *pair()]
print(" ".join(map(str, ports)))
for s in held:
    s.close()
PY
}

http_ready() {
    curl --silent --fail --max-time 2 --noproxy '*' -o /dev/null "$1" 2>/dev/null \
        || "$PYTHON" -c 'import sys, urllib.request as u; u.urlopen(sys.argv[1], timeout=2)' "$1" 2>/dev/null
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

launch() {
    local rest="$1" grpc="$2" gossip="$3" data_port="$4" raft="$5" raft_rpc="$6"
    env DISABLE_TELEMETRY=true \
        API_BASED_MODULES_DISABLED=true \
        ENABLE_MODULES= \
        DEFAULT_VECTORIZER_MODULE=none \
        GO_PROFILING_DISABLE=true \
        AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true \
        AUTOSCHEMA_ENABLED=false \
        PERSISTENCE_DATA_PATH="$DATA" \
        QUERY_DEFAULTS_LIMIT=25 \
        QUERY_MAXIMUM_RESULTS=10000 \
        CLUSTER_HOSTNAME=node1 \
        CLUSTER_IN_LOCALHOST=true \
        CLUSTER_BIND_ADDR=127.0.0.1 \
        CLUSTER_ADVERTISE_ADDR=127.0.0.1 \
        CLUSTER_GOSSIP_BIND_PORT="$gossip" \
        CLUSTER_DATA_BIND_PORT="$data_port" \
        GRPC_PORT="$grpc" \
        RAFT_PORT="$raft" \
        RAFT_INTERNAL_RPC_PORT="$raft_rpc" \
        RAFT_BOOTSTRAP_EXPECT=1 \
        nohup setsid "$BINARY" --host 127.0.0.1 --port "$rest" --scheme http >"$LOG" 2>&1 </dev/null &
    echo $!
}

wait_ready() {
    local pid="$1" rest="$2" grpc="$3" deadline=$((SECONDS + TIMEOUT))
    until http_ready "http://127.0.0.1:$rest/v1/.well-known/ready" && port_open "$grpc"; do
        if ! is_weaviate "$pid"; then
            say "weaviate-server exited before it was ready; the end of $LOG:"
            tail -n 20 "$LOG" >&2
            return 1
        fi
        if [ "$SECONDS" -ge "$deadline" ]; then
            say "weaviate-server was not ready after ${TIMEOUT} s (log: $LOG); stopping it"
            kill "$pid" 2>/dev/null || true
            return 1
        fi
        sleep 0.5
    done
}

start() {
    local pid ports rest grpc gossip data_port raft raft_rpc
    if pid="$(running_pid)"; then
        say "already running (pid $pid); \`$0 stop --dir $RUN_DIR\` stops it"
        cat "$ENV_FILE"
        return 0
    fi
    [ -n "$BINARY" ] || BINARY="$("$HERE/build.sh")"
    mkdir -p "$RUN_DIR"
    DATA="${DATA:-$RUN_DIR/data}"
    mkdir -p "$DATA"
    read -r rest grpc gossip data_port raft raft_rpc <<<"$(free_ports)"
    rest="${PORT:-$rest}"
    pid="$(launch "$rest" "$grpc" "$gossip" "$data_port" "$raft" "$raft_rpc")"
    echo "$pid" >"$PID_FILE"
    if ! wait_ready "$pid" "$rest" "$grpc"; then
        rm -f "$PID_FILE"
        return 1
    fi
    printf 'export WEAVIATE_URL=http://127.0.0.1:%s\nexport WEAVIATE_GRPC_PORT=%s\nexport WEAVIATE_PID=%s\n' \
        "$rest" "$grpc" "$pid" | tee "$ENV_FILE"
    say "Weaviate is ready at http://127.0.0.1:$rest (gRPC $grpc), pid $pid, data in $DATA, log $LOG"
}

stop() {
    local pid waited=0
    if ! pid="$(running_pid)"; then
        say "no weaviate-server started from $RUN_DIR is running"
        rm -f "$PID_FILE" "$ENV_FILE"
        return 0
    fi
    kill "$pid"
    while is_weaviate "$pid" && [ "$waited" -lt 60 ]; do
        sleep 0.5
        waited=$((waited + 1))
    done
    if is_weaviate "$pid"; then
        say "pid $pid did not stop in 30 s; killing it"
        kill -9 "$pid"
    fi
    rm -f "$PID_FILE" "$ENV_FILE"
    say "stopped weaviate-server (pid $pid)"
}

parse_args "$@"
"$ACTION"
