#!/usr/bin/env bash
# GET item counted, not timed (bench/README.md, "GET item counted"): the scenario of get-item-outside.sh (plainrest as
# `npm start` runs it, 5,000 products made through the API, a user's token, ids spread over the collection, 64
# connections, the bare reference beside it), each server run under valgrind's callgrind with its cache simulation.
# Only the answers to REQUESTS requests are counted, after as many to warm up: instructions, first-level cache misses
# and second-level misses per answer. Counts do not move with the machine's load as times do; they leave out the
# kernel's share and what a miss costs on this machine. Two to three minutes a checkout.
# Usage: bash bench/get-item-counted.sh [checkout ...]   (default: this checkout; each checkout built: npm run build;
#   PRODUCTS and REQUESTS change the counts above, KEEP_WORK=1 keeps the servers' logs and callgrind's files)
set -euo pipefail
CHECKOUTS=("$@")
HERE=$(cd "$(dirname "$0")/.." && pwd)
[ ${#CHECKOUTS[@]} -eq 0 ] && CHECKOUTS=("$HERE")
PRODUCTS=${PRODUCTS:-5000}
REQUESTS=${REQUESTS:-20000}
# A processor's first-level data and instruction caches, and a second level of 512 KiB: a miss there goes to a cache
# the machine's other work shares, or to memory.
CACHES=(--I1=32768,8,64 --D1=32768,8,64 --LL=524288,8,64)
for tool in valgrind callgrind_control; do
  command -v $tool >/dev/null || { echo "$tool is not installed (apt-get install -y valgrind)" >&2; exit 2; }
done

WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
source "$HERE/bench/get-item-common.sh"

# Each checkout's products made through its API, by a server started as usual and stopped again; Alice's token for it.
TOKENS=()
for index in "${!CHECKOUTS[@]}"; do
  checkout=${CHECKOUTS[$index]} main=$(main_of "${CHECKOUTS[$index]}") port=$(free_port)
  (cd "$checkout" && DATA_DIR="$WORK/data-$index" PORT=$port HOST=127.0.0.1 exec node "$main" >/dev/null 2>&1) &
  pid=$!
  wait_for "http://127.0.0.1:$port/v1"
  admin=$(token_for "$checkout" "$WORK/data-$index" admin@example.com)
  TOKENS+=("$(token_for "$checkout" "$WORK/data-$index" alice@example.com)")
  node "$HERE/bench/get-item-data.mjs" make "http://127.0.0.1:$port" "$admin" "$PRODUCTS"
  if [ "$index" -eq 0 ]; then
    node "$HERE/bench/get-item-data.mjs" export "http://127.0.0.1:$port" "${TOKENS[0]}" "$WORK/products.json"
  fi
  kill "$pid"
  wait "$pid" || true
done
LAST_ID=$(last_id_of "$WORK/products.json")

# count NAME PORT TOKEN: warms the server on PORT, counts REQUESTS answers, writes the counts to $WORK/NAME.counts.
count() {
  local name=$1 port=$2 pid
  wait_for "http://127.0.0.1:$port/v1/products/1" 180 # a start under valgrind takes a while
  pid=$(cat "$WORK/$name.pid")
  TOKEN=$3 node "$HERE/bench/get-item-load.mjs" "$port" "$REQUESTS" 64 "$LAST_ID"
  callgrind_control --instr=on "$pid" >/dev/null 2>&1
  TOKEN=$3 node "$HERE/bench/get-item-load.mjs" "$port" "$REQUESTS" 64 "$LAST_ID"
  callgrind_control --instr=off "$pid" >/dev/null 2>&1
  callgrind_control --dump "$pid" >/dev/null 2>&1
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  # The dump's totals, in the order its events line names them.
  awk -v n="$REQUESTS" '/^events:/ { for (i = 2; i <= NF; i++) event[i - 1] = $i }
    /^(summary|totals):/ { for (i = 2; i <= NF; i++) total[event[i - 1]] = $i }
    END { printf "%.0f %.1f %.1f\n", total["Ir"] / n, (total["D1mr"] + total["D1mw"] + total["I1mr"]) / n,
      (total["DLmr"] + total["DLmw"] + total["ILmr"]) / n }' "$WORK/callgrind.$name.1" >"$WORK/$name.counts"
}
# under_valgrind NAME DIR DATA PORT COMMAND...: COMMAND in DIR with DATA_DIR and PORT, counted only while
# instrumentation is on. No HOST (plainrest listens on 127.0.0.1 by default): valgrind names its control pipes with it.
under_valgrind() {
  local name=$1 dir=$2 data=$3 port=$4
  shift 4
  # Not in a subshell: $! must be valgrind's own process, the one callgrind_control addresses.
  cd "$dir"
  DATA_DIR=$data PORT=$port valgrind --tool=callgrind --cache-sim=yes "${CACHES[@]}" \
    --instr-atstart=no --callgrind-out-file="$WORK/callgrind.$name" "$@" >"$WORK/$name.log" 2>&1 &
  echo $! >"$WORK/$name.pid"
  PIDS+=($!)
  cd "$HERE"
}

# One server at a time: under valgrind a server is about fifty times slower, and two at once on a small machine leave
# clients waiting long enough for timeouts to close connections.
port=$(free_port)
under_valgrind reference "$HERE" "$WORK/unused" "$port" node bench/reference-server.mjs "$WORK/products.json" "$port"
count reference "$port" none
for index in "${!CHECKOUTS[@]}"; do
  checkout=${CHECKOUTS[$index]} main=$(main_of "${CHECKOUTS[$index]}") port=$(free_port)
  under_valgrind "plainrest-$index" "$checkout" "$WORK/data-$index" "$port" node "$main"
  count "plainrest-$index" "$port" "${TOKENS[$index]}"
done

echo "GET /v1/products/{id} counted: $REQUESTS answers after as many, $PRODUCTS products, 64 connections, node $(node --version)"
read -r ref_ir ref_l1 ref_l2 <"$WORK/reference.counts"
printf '%-32s %9s %9s %9s\n' "per answer" instructions "L1 misses" "L2 misses"
printf '%-32s %9s %9s %9s\n' reference "$ref_ir" "$ref_l1" "$ref_l2"
for index in "${!CHECKOUTS[@]}"; do
  read -r ir l1 l2 <"$WORK/plainrest-$index.counts"
  printf '%-32s %9s %9s %9s\n' "${CHECKOUTS[$index]##*/}" "$ir" "$l1" "$l2"
  awk -v name="${CHECKOUTS[$index]##*/} ratio" -v note="the reference's count over plainrest's" \
    -v a="$ref_ir" -v b="$ir" -v c="$ref_l1" -v d="$l1" -v e="$ref_l2" -v f="$l2" \
    'BEGIN { printf "%-32s %9.2f %9.2f %9.2f   %s\n", name, a / b, c / d, e / f, note }'
done
