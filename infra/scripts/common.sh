# Shared by infra/up and infra/test: package installation, the build, and the local PostgreSQL
# cluster. Sourced, not executed.

PAYRAIL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PAYRAIL_BUILD_DIR=${PAYRAIL_BUILD_DIR:-$PAYRAIL_ROOT/build}
PAYRAIL_PACKAGES=(
  g++ cmake make pkg-config git curl ca-certificates openssl
  libpistache-dev librdkafka-dev libpqxx-dev rapidjson-dev libssl-dev libcurl4-openssl-dev
  libgtest-dev librapidcheck-dev libicu-dev
  postgresql postgresql-contrib iso-codes
  kcat wrk hyperfine faketime ccache prometheus-cpp-dev
  haproxy
  chromium  # the web console's browser tests (tests/browser), headless
  clang libclang-rt-dev
  prometheus yq systemd  # promtool, yq and systemd-analyze for the lint tests
  libsecp256k1-dev
)
# Needed as commands; any provider will do (e.g. NodeSource's nodejs bundles npm and conflicts
# with Debian's npm package).
PAYRAIL_COMMANDS=(node:nodejs npm:npm)

say() { printf '\033[1m[payrail]\033[0m %s\n' "$*" >&2; }
# print_usage <script>: the script's header comment (up to `set -euo pipefail`), for --help.
print_usage() { sed -n '2,/^set -euo pipefail/s/^# \{0,1\}//p' "$1"; }
die() { say "error: $*"; exit 1; }

run_privileged() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    die "need root (or sudo) to run: $*"
  fi
}

install_packages() {
  local missing=()
  for package in "${PAYRAIL_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
      missing+=("$package")
  done
  for entry in "${PAYRAIL_COMMANDS[@]}"; do
    command -v "${entry%%:*}" >/dev/null || missing+=("${entry#*:}")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ! run_privileged apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; then
    run_privileged apt-get update -q >/dev/null || die "apt-get update failed"
    run_privileged apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
      die "apt-get install failed"
  fi
}

# The local EVM chain (anvil) and the Solidity compiler (solcjs), pinned in
# infra/adapters/evm/node/package-lock.json: the EVM tests and a local chain run them. Installed
# again whenever the lock file changed since the last install.
install_evm_node_tools() {
  local dir=$PAYRAIL_ROOT/infra/adapters/evm/node stamp lock
  stamp=$dir/node_modules/.payrail-lock-sha256
  lock=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  [ "$(cat "$stamp" 2>/dev/null)" = "$lock" ] && return 0
  say "installing anvil and solc (npm ci in infra/adapters/evm/node)"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) ||
    die "npm ci failed in infra/adapters/evm/node"
  echo "$lock" >"$stamp"
}

build_payrail() {
  local with_tests=$1
  say "building ($PAYRAIL_BUILD_DIR, Release, tests=$with_tests)"
  # ccache (installed above) makes rebuilds and other checkouts' builds cheap; paths are hashed
  # relative to the build directory so every checkout shares the cache.
  export CCACHE_BASEDIR=/
  cmake -S "$PAYRAIL_ROOT" -B "$PAYRAIL_BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache \
    -DPAYRAIL_BUILD_TESTS="$with_tests" >/dev/null || die "cmake configure failed"
  cmake --build "$PAYRAIL_BUILD_DIR" -j"$(nproc)" >/dev/null 2>"$PAYRAIL_BUILD_DIR.log" || {
    tail -n 60 "$PAYRAIL_BUILD_DIR.log" >&2
    die "build failed (full log: $PAYRAIL_BUILD_DIR.log)"
  }
}

postgres_bin_dir() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$dir" ] || die "PostgreSQL server binaries not found"
  echo "$dir"
}

# Postgres refuses to run as root: when we are root it runs as the system user `payrail`.
postgres_user() {
  if [ "$(id -u)" -ne 0 ]; then id -un; return; fi
  id payrail >/dev/null 2>&1 ||
    useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin payrail
  echo payrail
}

as_postgres_user() {
  local user=$1
  shift
  if [ "$user" = "$(id -un)" ]; then "$@"; else runuser -u "$user" -- "$@"; fi
}

# The cluster lives in $1 unless the Postgres user cannot reach it (a checkout under /root, say);
# then it lives under /var/lib/payrail, keyed by the requested path.
postgres_cluster_dir() {
  local wanted=$1 user=$2
  mkdir -p "$(dirname "$wanted")"
  if as_postgres_user "$user" test -x "$(dirname "$wanted")" 2>/dev/null; then
    echo "$wanted"
  else
    echo "/var/lib/payrail/$(printf '%s' "$wanted" | sha256sum | cut -c1-16)/postgres"
  fi
}

# postgres_socket_dir <cluster dir> <port>: where the cluster's Unix socket is, or nothing. A
# socket's path ("<dir>/.s.PGSQL.<port>") is at most 107 bytes, and PostgreSQL refuses to start
# when it cannot create the socket it is given: a checkout deep in the file system gets none.
postgres_socket_dir() {
  local cluster=$1 port=$2
  if [ $((${#cluster} + 10 + ${#port})) -le 107 ]; then echo "$cluster"; fi
}

# start_postgres <cluster dir> <port>: initialises on first use, then starts; idempotent.
start_postgres() {
  local cluster=$1 port=$2 user bin
  user=$(postgres_user)
  bin=$(postgres_bin_dir)
  mkdir -p "$cluster"
  chown "$user" "$cluster" 2>/dev/null || true
  chmod 700 "$cluster"
  if [ ! -f "$cluster/PG_VERSION" ]; then
    say "initialising PostgreSQL cluster in $cluster"
    as_postgres_user "$user" "$bin/initdb" -D "$cluster" -U payrail --auth=trust \
      --encoding=UTF8 --locale=C.UTF-8 >/dev/null || die "initdb failed"
  fi
  if as_postgres_user "$user" "$bin/pg_ctl" -D "$cluster" status >/dev/null 2>&1; then
    say "PostgreSQL already running in $cluster"
    return 0
  fi
  local sockets
  sockets=$(postgres_socket_dir "$cluster" "$port")
  [ -n "$sockets" ] || sockets="''"  # none: clients connect over TCP (127.0.0.1)
  as_postgres_user "$user" "$bin/pg_ctl" -D "$cluster" -l "$cluster/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$sockets \
        -c max_connections=400 -c shared_buffers=256MB -c fsync=${PAYRAIL_PG_FSYNC:-on}" \
    start >/dev/null || { tail -n 20 "$cluster/server.log" >&2; die "PostgreSQL did not start"; }
}

# Stops the cluster within about 3 s: a fast shutdown (sessions are disconnected, in-flight
# transactions roll back and are retried by their callers), immediate if that takes longer than
# 2 s (crash recovery on the next start replays the WAL: nothing committed is lost).
stop_postgres() {
  local cluster=$1 user bin
  [ -f "$cluster/postmaster.pid" ] || return 0
  user=$(postgres_user)
  bin=$(postgres_bin_dir)
  as_postgres_user "$user" "$bin/pg_ctl" -D "$cluster" -m fast -w -t 2 stop >/dev/null 2>&1 ||
    as_postgres_user "$user" "$bin/pg_ctl" -D "$cluster" -m immediate -w -t 1 stop >/dev/null 2>&1 ||
    true
}

# PostgreSQL processes whose working directory is the cluster (every server process has it).
postgres_processes_of() {
  local cluster process
  cluster=$(realpath "$1" 2>/dev/null) || return 0
  for process in /proc/[0-9]*; do
    [ "$(readlink "$process/cwd" 2>/dev/null)" = "$cluster" ] || continue
    [ "$(cat "$process/comm" 2>/dev/null)" = postgres ] && echo "${process#/proc/}"
  done
  return 0
}

# A PostgreSQL left running on this cluster by an earlier run that was killed (its supervisor
# gave up, kill -9) holds the port and the data directory: stop it, and any backends a killed
# postmaster left behind (they would keep the shared memory and stop a new server from starting).
stop_stale_postgres() {
  local cluster=$1 pid port running leftovers
  [ -d "$cluster" ] || return 0
  if [ -f "$cluster/postmaster.pid" ]; then
    pid=$(sed -n 1p "$cluster/postmaster.pid")
    port=$(sed -n 4p "$cluster/postmaster.pid")
    running=" $(postgres_processes_of "$cluster" | tr '\n' ' ')"
    if [ -n "$pid" ] && [[ $running == *" $pid "* ]]; then
      say "a PostgreSQL left running by an earlier run (pid $pid, port $port, $cluster): stopping it"
      stop_postgres "$cluster"
    fi
  fi
  leftovers=$(postgres_processes_of "$cluster" | tr '\n' ' ')
  if [ -n "${leftovers// /}" ]; then
    say "stopping PostgreSQL processes left behind on $cluster: $leftovers"
    kill -TERM $leftovers 2>/dev/null || true
    sleep 1
    kill -KILL $leftovers 2>/dev/null || true
  fi
  return 0
}

# True when something listens on TCP port $1 (any address).
port_in_use() {
  if command -v ss >/dev/null; then
    [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]
  else
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
  fi
}

ensure_database() {
  local port=$1 database=$2
  psql -h 127.0.0.1 -p "$port" -U payrail -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = '$database'" | grep -q 1 ||
    psql -h 127.0.0.1 -p "$port" -U payrail -d postgres -qc "CREATE DATABASE $database" >/dev/null
}

# Waits for a line matching $2 in file $1 (a child's log), at most $3 seconds.
wait_for_line() {
  local file=$1 pattern=$2 seconds=$3
  for _ in $(seq 1 $((seconds * 10))); do
    grep -q "$pattern" "$file" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# install_npm_tools <folder>: `npm ci` there from its package-lock.json, again only when the lock
# file changed since the last install (the copy kept in node_modules says which it was).
install_npm_tools() {
  local folder=$1
  if ! cmp -s "$folder/package-lock.json" "$folder/node_modules/.payrail-installed-lock.json"; then
    say "installing $(basename "$folder") tools from npm (npm ci in ${folder#"$PAYRAIL_ROOT"/})"
    (cd "$folder" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) ||
      die "npm ci failed in $folder"
    cp "$folder/package-lock.json" "$folder/node_modules/.payrail-installed-lock.json"
  fi
}
