#!/usr/bin/env bash
# The systemd units of infra/deploy/systemd as systemd reads them, offline (no running systemd
# is needed):
#  - `systemd-analyze verify --root` of an instance of each template and of payrail.target, in a
#    scratch root holding this build installed as docs/deploying.md says (DESTDIR=<root> cmake
#    --install <build> --prefix /opt/payrail). ExecStart= paths exist there exactly as the units
#    name them, so the units are verified unmodified and the install rules with them. The root
#    also gets the host's own units (sysinit.target, ...), which default dependencies need. Any
#    message fails: verify exits 0 on unknown keys and values it cannot parse;
#  - `systemd-analyze security --offline`: every service's exposure stays at most 2.0 ("OK");
#  - a template per role of infra/up, each stopping within the 5 s of docs/operations.md;
#  - every variable of payrail.env.example is one docs/configuration.md documents.
#
#   tests/lint/systemd_units.sh <project root> <build dir>
set -euo pipefail
ROOT=${1:?usage: systemd_units.sh <project root> <build dir>}
BUILD=${2:?usage: systemd_units.sh <project root> <build dir>}
UNITS=$ROOT/infra/deploy/systemd
command -v systemd-analyze >/dev/null ||
  { echo "systemd units: systemd-analyze is missing (infra/test installs systemd)" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
status=0
fail() { echo "systemd units: $*" >&2; status=1; }

# The roles infra/up starts, and a template for each of them and the API.
roles=$(sed -nE 's/^ROLES=\((.*)\)$/\1/p' "$ROOT/infra/up")
[ -n "$roles" ] || fail "no ROLES=(...) in infra/up"
instances=(payrail.target)
port=9410
for role in api $roles; do
  unit=payrail-$role@.service
  if [ ! -f "$UNITS/$unit" ]; then
    fail "$unit is missing for the role $role"
    continue
  fi
  grep -qxF "TimeoutStopSec=5s" "$UNITS/$unit" || fail "$unit: TimeoutStopSec is not the documented 5s"
  grep -qxF "ExecStart=/opt/payrail/bin/payrail-$role" "$UNITS/$unit" ||
    fail "$unit: ExecStart is not /opt/payrail/bin/payrail-$role"
  instances+=("payrail-$role@$port.service")
  port=$((port + 10))
done
grep -q "every process but the broker at once, within 5 s" "$ROOT/docs/operations.md" ||
  fail "docs/operations.md no longer says processes stop within 5 s: update TimeoutStopSec"

# The scratch root: this build installed under /opt/payrail, the units, the host's units.
SCRATCH=$WORK/root
DESTDIR=$SCRATCH cmake --install "$BUILD" --prefix /opt/payrail >"$WORK/install.log" 2>&1 ||
  { cat "$WORK/install.log" >&2; fail "cmake --install failed"; }
mkdir -p "$SCRATCH/etc/systemd/system" "$SCRATCH/usr/lib/systemd"
cp "$UNITS"/*.service "$UNITS"/*.target "$SCRATCH/etc/systemd/system/"
for host_units in /usr/lib/systemd/system /lib/systemd/system; do
  [ -d "$host_units" ] && { cp -r "$host_units" "$SCRATCH/usr/lib/systemd/"; break; }
done

if ! systemd-analyze verify --root="$SCRATCH" "${instances[@]}" >"$WORK/verify.log" 2>&1 ||
  [ -s "$WORK/verify.log" ]; then
  cat "$WORK/verify.log" >&2
  fail "systemd-analyze verify: ${instances[*]}"
fi
for instance in "${instances[@]}"; do
  [[ $instance == *.service ]] || continue
  systemd-analyze security --offline=yes --root="$SCRATCH" --threshold=20 "$instance" \
    >"$WORK/security.log" 2>&1 ||
    { tail -n 3 "$WORK/security.log" >&2; fail "$instance: exposure above 2.0"; }
done

# The example environment names documented settings only.
for name in $(grep -oE '^#?PAYRAIL_[A-Z0-9_]+=' "$UNITS/payrail.env.example" | tr -d '#='); do
  grep -qF "| \`$name\` |" "$ROOT/docs/configuration.md" ||
    fail "payrail.env.example: $name is not in docs/configuration.md"
done

[ "$status" -eq 0 ] && echo "systemd units: ${instances[*]} verified"
exit $status
