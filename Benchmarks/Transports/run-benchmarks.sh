#!/usr/bin/env bash
# Runs the transport benchmarks against nginx on 127.0.0.1 (a C server that is not the bottleneck: NetKit's
# LoopbackServer spends a thread per connection and would be). Installs nginx from Debian's packages when it is
# missing, serves a small JSON file and a 100 MB file from a scratch directory, and stops it at the end.
#
#   bash Benchmarks/Transports/run-benchmarks.sh [rounds] [memory-requests]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
rounds="${1:-5}"
requests="${2:-100000}"

if ! command -v nginx > /dev/null && [ -x /usr/sbin/nginx ]; then PATH="$PATH:/usr/sbin"; fi
if ! command -v nginx > /dev/null; then
    apt-get update -qq && apt-get install -y -qq nginx > /dev/null
fi

scratch="$(mktemp -d)"
chmod 755 "$scratch"
mkdir -p "$scratch/www" "$scratch/logs"
printf '{"id":1,"name":"ann","email":"ann@example.com"}' > "$scratch/www/small.json"
head -c 100000000 /dev/zero > "$scratch/www/large.bin"
chmod -R a+rX "$scratch/www"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
cat > "$scratch/nginx.conf" <<EOF
worker_processes 1;
pid $scratch/nginx.pid;
error_log $scratch/logs/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 10000000;
    keepalive_timeout 120s;
    client_body_temp_path $scratch/logs;
    proxy_temp_path $scratch/logs;
    fastcgi_temp_path $scratch/logs;
    uwsgi_temp_path $scratch/logs;
    scgi_temp_path $scratch/logs;
    types { application/json json; application/octet-stream bin; }
    server {
        listen 127.0.0.1:$port;
        root $scratch/www;
    }
}
EOF
nginx -p "$scratch" -c "$scratch/nginx.conf" -e "$scratch/logs/error.log" -g 'daemon off;' &
nginx_pid=$!
trap 'kill "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true; rm -rf "$scratch"' EXIT
# nginx listens within milliseconds; each try waits 0.1 s, at most 50 tries.
for _ in $(seq 50); do
    curl -sf "http://127.0.0.1:$port/small.json" > /dev/null && break
    sleep 0.1
done

swift build -c release --package-path "$here"
bench="$here/.build/release/transport-bench"
echo "nginx $(nginx -v 2>&1 | sed 's/.*\///'), 1 worker, on 127.0.0.1:$port"
"$bench" "http://127.0.0.1:$port" all "$rounds"
echo "## resident memory over $requests small GETs, 64 in flight (MiB after warm-up, then after each 10,000)"
header="| client | start"
rule="| --- | ---"
for n in $(seq 10000 10000 "$requests"); do header="$header | $((n / 1000))k"; rule="$rule | ---"; done
echo "$header | rate |"
echo "$rule | --- |"
for key in urlsession netkit-urlsession ahc netkit-ahc; do
    "$bench" "http://127.0.0.1:$port" memory "$key" "$requests" | grep '^|'
done
