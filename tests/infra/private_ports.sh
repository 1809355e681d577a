# Sourced by the infra/up tests (after infra/scripts/common.sh): private ports for one infra/up
# run, exported as the settings infra/up reads. Ports below the kernel's ephemeral range (32768
# and up), where no outgoing connection can take them between the check and the bind. Metrics
# use PAYRAIL_METRICS_BASE_PORT .. +69; the other ports are chosen outside that block.
METRICS_BASE=$((20000 + RANDOM % 120 * 100))
free_port() {
  local port
  while :; do
    port=$((20000 + RANDOM % 12700))
    [ "$port" -ge "$METRICS_BASE" ] && [ "$port" -lt $((METRICS_BASE + 70)) ] && continue
    port_in_use "$port" || { echo "$port"; return; }
  done
}
export PAYRAIL_HTTP_PORT=$(free_port) PAYRAIL_PG_PORT=$(free_port) PAYRAIL_KAFKA_PORT=$(free_port)
export PAYRAIL_HTTPS_PORT=$(free_port) PAYRAIL_METRICS_BASE_PORT=$METRICS_BASE PAYRAIL_PG_FSYNC=off
