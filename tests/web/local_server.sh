# local_server.sh — sourced by the tests/web scripts: serve_dir DIR starts python's
# http.server on a free port of 127.0.0.1 only (nothing else listens), waits until it
# answers (5 s at most) and sets $port and $server (its pid, for the caller's cleanup).
serve_dir() {
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  python3 -m http.server --bind 127.0.0.1 --directory "$1" "$port" >/dev/null 2>&1 &
  server=$!
  for _ in $(seq 50); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "no server on 127.0.0.1:$port"
  return 1
}
