#!/usr/bin/env bash
# Starts a private ClickHouse server (Debian's clickhouse-server, 18.16 on Debian 12) on
# 127.0.0.1:8123 for tests and CI. Idempotent: exits 0 at once when a server already answers.
# MR_CLICKHOUSE_HTTP_PORT / MR_CLICKHOUSE_TCP_PORT / MR_CLICKHOUSE_DIR start another one beside it
# (tests that stop or crash "their own" ClickHouse use that, never the shared one).
# The server runs from a copy of /etc/clickhouse-server with every path rewritten into
# $MR_CLICKHOUSE_DIR, so it needs no systemd, no clickhouse user and no /var/lib changes
# (running as root is fine this way).
set -euo pipefail

DIR="${MR_CLICKHOUSE_DIR:-/tmp/mr-clickhouse}"
HTTP_PORT="${MR_CLICKHOUSE_HTTP_PORT:-8123}"
TCP_PORT="${MR_CLICKHOUSE_TCP_PORT:-9000}"
URL="http://127.0.0.1:$HTTP_PORT"

if [ "$(curl -s --max-time 2 "$URL/ping" 2>/dev/null || true)" = "Ok." ]; then
  echo "clickhouse: already running at $URL ($(curl -s "$URL/?query=SELECT%20version()"))"
  exit 0
fi

# /usr/sbin is not on a non-root PATH on Debian.
find_server() { command -v clickhouse-server 2>/dev/null || ls /usr/sbin/clickhouse-server /usr/bin/clickhouse-server 2>/dev/null | head -n 1; }
need=()
[ -n "$(find_server)" ] || need+=(clickhouse-server clickhouse-client)
command -v curl >/dev/null 2>&1 || need+=(curl) # minimal Debian images lack it
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
  # Where systemd/init runs, the package starts its own server on 8123: use that one.
  if [ "$(curl -s --max-time 2 "$URL/ping" || true)" = "Ok." ]; then
    echo "clickhouse: the package's service is running at $URL"
    exit 0
  fi
fi

mkdir -p "$DIR"/{data,tmp,user_files,format_schemas,log}
cp /etc/clickhouse-server/config.xml /etc/clickhouse-server/users.xml "$DIR/"
for sub in config.d users.d; do
  if [ -d "/etc/clickhouse-server/$sub" ]; then
    rm -rf "${DIR:?}/$sub" && cp -r "/etc/clickhouse-server/$sub" "$DIR/$sub"
  fi
done

# Only the first <path> is the data path; a later one is the ZooKeeper DDL queue path.
sed -i \
  -e "0,/<path>[^<]*<\/path>/s||<path>$DIR/data/</path>|" \
  -e "s|<tmp_path>[^<]*</tmp_path>|<tmp_path>$DIR/tmp/</tmp_path>|" \
  -e "s|<user_files_path>[^<]*</user_files_path>|<user_files_path>$DIR/user_files/</user_files_path>|" \
  -e "s|<format_schema_path>[^<]*</format_schema_path>|<format_schema_path>$DIR/format_schemas/</format_schema_path>|" \
  -e "s|<log>[^<]*</log>|<log>$DIR/log/clickhouse-server.log</log>|" \
  -e "s|<errorlog>[^<]*</errorlog>|<errorlog>$DIR/log/clickhouse-server.err.log</errorlog>|" \
  -e "s|<http_port>[^<]*</http_port>|<http_port>$HTTP_PORT</http_port>|" \
  -e "s|<tcp_port>[^<]*</tcp_port>|<tcp_port>$TCP_PORT</tcp_port>|" \
  -e "/<tcp_port_secure>/d" -e "/<https_port>/d" -e "/<interserver_http_port>/d" -e "/<mysql_port>/d" \
  "$DIR/config.xml"

# The default user must be free to set readonly=1 per query (the daemon does that on every
# query). That holds as long as its profile does not itself pin readonly; refuse loudly if so.
if sed -n '/<profiles>/,/<\/profiles>/p' "$DIR/users.xml" | sed -n '/<default>/,/<\/default>/p' | grep -q '<readonly>'; then
  echo "clickhouse: the default profile in users.xml sets readonly; per-query readonly=1 would fail" >&2
  exit 1
fi

cd "$DIR"
setsid "$(find_server)" --config-file="$DIR/config.xml" >"$DIR/log/stdout.log" 2>&1 < /dev/null &
echo $! >"$DIR/server.pid"

for _ in $(seq 1 60); do
  if [ "$(curl -s --max-time 2 "$URL/?query=SELECT%201" || true)" = "1" ]; then
    echo "clickhouse: started $(curl -s "$URL/?query=SELECT%20version()") at $URL (data in $DIR, pid $(cat "$DIR/server.pid"))"
    exit 0
  fi
  sleep 1
done

echo "clickhouse: did not answer SELECT 1 within 60 s; last log lines:" >&2
tail -n 30 "$DIR/log/clickhouse-server.err.log" "$DIR/log/stdout.log" >&2 2>/dev/null || true
exit 1
