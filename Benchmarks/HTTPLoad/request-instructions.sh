#!/usr/bin/env bash
# Instructions per request of a bench-signalbox binary, by callgrind (all threads): REQUESTS
# requests one at a time after 200 unmeasured, on one keep-alive connection or (MODE close) a
# connection each; also the calls per request to malloc, pthread_mutex_lock and
# swift_beginAccess (Swift's run-time exclusivity check). Compare two builds by running it on
# each; rounds of one binary spread by about 1,000 instructions, the call counts do not.
#
# usage: Benchmarks/HTTPLoad/request-instructions.sh BINARY [PATH] [REQUESTS] [keep-alive|close]
#   BINARY: bench-signalbox, e.g. `swift build -c release --product bench-signalbox` here
#   (valgrind 3.19 cannot read Swift 6's DWARF 5: the script measures an --strip-debug copy)
set -euo pipefail
binary=$(realpath "${1:?usage: request-instructions.sh BINARY [PATH] [REQUESTS] [keep-alive|close]}")
path=${2:-/healthz}
requests=${3:-2000}
mode=${4:-keep-alive}
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
objcopy --strip-debug "$binary" "$work/server"

cat > "$work/client.py" <<'PY'
import socket, sys
port, path, count, mode = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
close = mode == "close"
request = f"GET {path} HTTP/1.1\r\nHost: x\r\n{'Connection: close' + chr(13) + chr(10) if close else ''}\r\n".encode()
def answer(s, buffer):
    while True:
        end = buffer.find(b"\r\n\r\n")
        if end >= 0:
            head = buffer[:end].decode()
            assert head.startswith("HTTP/1.1 200"), head
            length = int([l.split(":")[1] for l in head.split("\r\n") if l.lower().startswith("content-length")][0])
            if len(buffer) >= end + 4 + length:
                return buffer[end + 4 + length:]
        chunk = s.recv(65536)
        if not chunk: raise SystemExit("the server closed the connection")
        buffer += chunk
s = None if close else socket.create_connection(("127.0.0.1", port))
buffer = b""
for _ in range(count):
    if close: s = socket.create_connection(("127.0.0.1", port)); buffer = b""
    s.sendall(request)
    buffer = answer(s, buffer)
    if close: s.close()
PY

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/callgrind.out" "$work/server" "$port" >/dev/null 2>"$work/valgrind.log" &
pid=$!
for _ in $(seq 1 600); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port)).close()" 2>/dev/null && break
    sleep 0.1
done
python3 "$work/client.py" "$port" "$path" 200 "$mode"
callgrind_control -i on "$pid" >/dev/null 2>&1
python3 "$work/client.py" "$port" "$path" "$requests" "$mode"
callgrind_control -i off "$pid" >/dev/null 2>&1
callgrind_control -d "$pid" >/dev/null 2>&1
kill "$pid"; wait "$pid" 2>/dev/null || true

python3 - "$work/callgrind.out.1" "$requests" "$path" "$mode" <<'PY'
import collections, re, sys
file, requests, path, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
names, calls, total, callee = {}, collections.Counter(), 0, None
for line in open(file, errors="replace"):
    match = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
    if match:
        kind, index, name = match.groups()
        if name: names[index] = name
        if kind == "cfn": callee = names.get(index, index)
        continue
    if line.startswith("calls=") and callee: calls[callee] += int(line.split()[0][6:])
    if line.startswith("totals:"): total = int(line.split()[1])
per = lambda name: sum(v for k, v in calls.items() if re.fullmatch(name, k)) / requests
print(f"{path} ({mode}, {requests} requests): {total // requests} instructions per request; per request "
      f"malloc {per('malloc'):.1f}, pthread_mutex_lock {per('pthread_mutex_lock.*'):.1f}, swift_beginAccess {per('swift_beginAccess'):.1f}")
PY
