#!/usr/bin/env bash
# Build a pinned Weaviate server from source and cache it by version; print the binary's path.
#
#   deployments/weaviate/build.sh            # -> ~/.cache/cairn/weaviate/v1.39.0/weaviate-server
#   WEAVIATE_VERSION=v1.38.2 deployments/weaviate/build.sh
#
# Why from source: no package registry ships the Weaviate server (the PyPI `weaviate` is a
# placeholder, the client's embedded mode downloads from GitHub), while the Go module proxy serves
# github.com/weaviate/weaviate by version. Why v1.39.0: the newest release when Cairn pinned it;
# weaviate-client v4 refuses servers older than 1.27.0; and its go.mod has no `replace`
# directives, so `go install MODULE/cmd/weaviate-server@VERSION` builds it as released.
# The flags are those of Weaviate's own release builds: no cgo, the pure-Go resolver, no debug
# symbols. A cold build takes about 7-8 minutes on 2 cores; afterwards the cached binary is reused.
#
# Environment: WEAVIATE_VERSION (default v1.39.0), CAIRN_WEAVIATE_CACHE (default
# ${XDG_CACHE_HOME:-~/.cache}/cairn/weaviate), GO (the go command; default: `go` on PATH, then
# /usr/local/go/bin/go). Progress goes to stderr; stdout is only the path.
set -euo pipefail

VERSION="${WEAVIATE_VERSION:-v1.39.0}"
CACHE="${CAIRN_WEAVIATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cairn/weaviate}"
TARGET="$CACHE/$VERSION/weaviate-server"
MODULE="github.com/weaviate/weaviate/cmd/weaviate-server"
MIN_GO="1.26"  # the go directive of Weaviate v1.39.0's go.mod

say() { echo "build.sh: $*" >&2; }

# GO when set (and then only it), else `go` on PATH, else Go's default install place.
find_go() {
    local candidate
    if [ -n "${GO:-}" ]; then
        [ -x "$GO" ] && echo "$GO"
        return
    fi
    for candidate in "$(command -v go || true)" /usr/local/go/bin/go; do
        if [ -n "$candidate" ] && [ -x "$candidate" ]; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

# Go too old for the module (`go env GOVERSION` prints "go1.26.8").
go_too_old() {
    local have
    have="$("$1" env GOVERSION)"
    have="${have#go}"
    [ "$(printf '%s\n%s\n' "$MIN_GO" "$have" | sort -V | head -n1)" != "$MIN_GO" ]
}

if [ -x "$TARGET" ]; then
    echo "$TARGET"
    exit 0
fi

if ! GO_BIN="$(find_go)"; then
    say "Go $MIN_GO+ is needed to build Weaviate $VERSION and was not found${GO:+ at GO=$GO}: install it from https://go.dev/dl/ (unpack to /usr/local/go) or set GO=/path/to/go; or point WEAVIATE_URL at a running Weaviate"
    exit 127
fi
if go_too_old "$GO_BIN"; then
    say "$GO_BIN is $("$GO_BIN" env GOVERSION); Weaviate $VERSION needs Go $MIN_GO+: install a newer one from https://go.dev/dl/ or set GO=/path/to/go"
    exit 127
fi

mkdir -p "$CACHE"
# One build at a time per cache (two test sessions may start together); the second one waits and
# then finds the binary.
exec 9>"$CACHE/.build.lock"
if command -v flock >/dev/null; then
    flock 9
fi
if [ -x "$TARGET" ]; then
    echo "$TARGET"
    exit 0
fi

staging="$(mktemp -d "$CACHE/.build.XXXXXX")"
trap 'rm -rf "$staging"' EXIT
say "building Weaviate $VERSION with $("$GO_BIN" env GOVERSION) from the Go module proxy (about 8 minutes cold on 2 cores) ..."
started=$SECONDS
GOTOOLCHAIN=local CGO_ENABLED=0 GOBIN="$staging" GOFLAGS="${GOFLAGS:-} -modcacherw" \
    "$GO_BIN" install -trimpath -tags netgo -ldflags "-s -w" "$MODULE@$VERSION"
mkdir -p "$(dirname "$TARGET")"
mv "$staging/weaviate-server" "$TARGET"  # the same file system: a whole binary or none
say "built $TARGET in $((SECONDS - started)) s"
echo "$TARGET"
