#!/usr/bin/env bash
# Runs INSIDE `unshare -n` (started by replay-dockerfile.ts): a network namespace whose only
# interface is loopback. Brings lo up, relays 127.0.0.1:8123 and :5432 to the CI ClickHouse and
# PostgreSQL through unix sockets (the only way out), starts the replayed image's CMD as its USER
# in its WORKDIR with its ENV, then checks: no other network, /readyz, the HEALTHCHECK, a scan,
# and a clean exit on SIGTERM.
set -euo pipefail

ip link set lo up
socat TCP-LISTEN:8123,bind=127.0.0.1,fork,reuseaddr "UNIX-CONNECT:$SMOKE_CH_SOCKET" &
socat TCP-LISTEN:5432,bind=127.0.0.1,fork,reuseaddr "UNIX-CONNECT:$SMOKE_PG_SOCKET" &
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT

if curl -s --max-time 5 -o /dev/null https://registry.npmjs.org/; then
  echo "image-smoke: the namespace reaches the network; it must have loopback only" >&2
  exit 1
fi
echo "image-smoke: network namespace: $(ip -brief link | tr '\n' ' ')(no route out)"

# env -i: the image's ENV and the deployment's variables only, nothing from this shell.
mapfile -t env_args < <(python3 -c 'import json,os; [print(f"{k}={v}") for k,v in json.loads(os.environ["SMOKE_ENV"]).items()]')
mapfile -t cmd < <(python3 -c 'import json,os; [print(a) for a in json.loads(os.environ["SMOKE_CMD"])]')
mapfile -t healthcheck < <(python3 -c 'import json,os; [print(a) for a in (json.loads(os.environ["SMOKE_HEALTHCHECK"]) or [])]')
as_user=(setpriv "--reuid=$SMOKE_UID" "--regid=$SMOKE_GID" --clear-groups env -i "${env_args[@]}")

cd "$SMOKE_APP_DIR"
log="$(mktemp)"
"${as_user[@]}" "${cmd[@]}" >"$log" 2>&1 &
daemon=$!
echo "image-smoke: started '${cmd[*]}' as uid $SMOKE_UID in the image's WORKDIR (pid $daemon)"

base="http://127.0.0.1:$SMOKE_PORT"
ready=""
for _ in $(seq 1 120); do
  if ! kill -0 "$daemon" 2>/dev/null; then break; fi
  ready="$(curl -s -w ' %{http_code}' "$base/readyz" || true)"
  case "$ready" in *" 200") break ;; esac
  sleep 0.5
done
echo "image-smoke: /readyz -> $ready"
if [[ "$ready" != *" 200" ]]; then
  echo "image-smoke: the daemon did not become ready; its log:" >&2
  cat "$log" >&2
  exit 1
fi

if [ ${#healthcheck[@]} -gt 0 ]; then
  "${as_user[@]}" "${healthcheck[@]}" || { echo "image-smoke: HEALTHCHECK failed" >&2; exit 1; }
  echo "image-smoke: HEALTHCHECK passed"
fi

scan="$(curl -s -X POST -H "Authorization: Bearer $SMOKE_KEY" "$base/v1/reliability/scan?wait=true")"
echo "image-smoke: scan -> ${scan:0:300}"
case "$scan" in *'"status":"succeeded"'*) ;; *) echo "image-smoke: the scan did not succeed; log:" >&2; cat "$log" >&2; exit 1 ;; esac

kill -TERM "$daemon"
code=0
wait "$daemon" || code=$?
if [ "$code" -ne 0 ]; then
  echo "image-smoke: the daemon exited $code on SIGTERM; log:" >&2
  cat "$log" >&2
  exit 1
fi
echo "image-smoke: SIGTERM -> exit 0"
