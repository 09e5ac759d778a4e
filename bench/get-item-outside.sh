#!/usr/bin/env bash
# GET item measured from outside, as a user meets it (bench/README.md, "GET item"): plainrest as `npm start` runs
# it (node dist/plainrest.mjs, or dist/main.js in a checkout from before the one file; durable, the access log on
# stdout to a file), 5,000 products made through the API, a user's token, ids spread over the collection, load from
# `wrk -t1 -c64` in its own process, against the bare reference (bench/reference-server.mjs) serving the same
# products; the servers alternated round by round. Each server's own CPU time per answer (user and system, from /proc)
# is printed beside its rate: it moves less with the machine's drift than the rate does. Beside the reference, the
# same reference with --like-plainrest (the three header fields and the access log plainrest's answer carries, its
# lines to a file): plainrest's ratio to it is printed too ("like for like").
# Usage: bash bench/get-item-outside.sh [rounds] [checkout ...]   (default: 3 rounds, this checkout; each checkout
#   given must have been built: npm run build). Prints each round's answers per second and ratio, then the medians.
set -euo pipefail
ROUNDS=${1:-3}
shift || true
CHECKOUTS=("$@")
HERE=$(cd "$(dirname "$0")/.." && pwd)
[ ${#CHECKOUTS[@]} -eq 0 ] && CHECKOUTS=("$HERE")
SECONDS_PER_ROUND=${SECONDS_PER_ROUND:-5}
PRODUCTS=${PRODUCTS:-5000}
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install -y wrk)" >&2; exit 2; }

WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
source "$HERE/bench/get-item-common.sh"

# Each checkout on its own data directory, its products made through the API by an administrator.
PORTS=() TOKENS=()
for index in "${!CHECKOUTS[@]}"; do
  checkout=${CHECKOUTS[$index]}
  data="$WORK/data-$index"
  port=$(free_port)
  main=$(main_of "$checkout")
  (cd "$checkout" && DATA_DIR=$data PORT=$port HOST=127.0.0.1 exec node "$main" >"$WORK/log-$index" 2>&1) &
  PIDS+=($!)
  wait_for "http://127.0.0.1:$port/v1"
  admin=$(token_for "$checkout" "$data" admin@example.com)
  TOKENS+=("$(token_for "$checkout" "$data" alice@example.com)")
  PORTS+=("$port")
  node "$HERE/bench/get-item-data.mjs" make "http://127.0.0.1:$port" "$admin" "$PRODUCTS"
done

# The reference serves the first checkout's products, read back through its list.
node "$HERE/bench/get-item-data.mjs" export "http://127.0.0.1:${PORTS[0]}" "${TOKENS[0]}" "$WORK/products.json"
REFERENCE_PORT=$(free_port)
node "$HERE/bench/reference-server.mjs" "$WORK/products.json" "$REFERENCE_PORT" &
PIDS+=($!)
REFERENCE_PID=$!
wait_for "http://127.0.0.1:$REFERENCE_PORT/v1/products/1"
LIKE_PORT=$(free_port)
node "$HERE/bench/reference-server.mjs" "$WORK/products.json" "$LIKE_PORT" --like-plainrest >"$WORK/like.log" &
PIDS+=($!)
LIKE_PID=$!
wait_for "http://127.0.0.1:$LIKE_PORT/v1/products/1"
LAST_ID=$(last_id_of "$WORK/products.json")

# Request n asks for id 1 + (n × 7919 mod LAST_ID): every product in turn, in an order no cache can predict.
cat >"$WORK/spread.lua" <<LUA
local token = os.getenv("TOKEN")
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", "/v1/products/" .. (1 + (n * 7919) % $LAST_ID), { ["Authorization"] = "Bearer " .. token })
end
LUA
cpu_of() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rate() {
  local before after
  before=$(cpu_of "$3")
  TOKEN=$2 wrk -t1 -c64 -d"${SECONDS_PER_ROUND}s" -s "$WORK/spread.lua" "http://127.0.0.1:$1" >"$WORK/wrk.out"
  after=$(cpu_of "$3")
  awk -v ticks=$((after - before)) '/Non-2xx/ { bad = 1 } /requests in/ { count = $1 } /Requests\/sec/ { rate = $2 }
    END { if (bad) print "errors"; else printf "%d %d", rate, ticks * 10000 / count }' "$WORK/wrk.out"
}

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "GET /v1/products/{id}, $PRODUCTS products made through the API, a user's token, wrk -t1 -c64 -d${SECONDS_PER_ROUND}s, node $(node --version)"
declare -A RATIOS CPU_RATIOS LIKE_RATIOS LIKE_CPU_RATIOS
for round in $(seq "$ROUNDS"); do
  line="round $round:"
  for index in "${!CHECKOUTS[@]}"; do
    # The references first in odd rounds, plainrest first in even ones.
    if ((round % 2)); then
      reference=$(rate "$REFERENCE_PORT" none "$REFERENCE_PID")
      like=$(rate "$LIKE_PORT" none "$LIKE_PID")
      plainrest=$(rate "${PORTS[$index]}" "${TOKENS[$index]}" "${PIDS[$index]}")
    else
      plainrest=$(rate "${PORTS[$index]}" "${TOKENS[$index]}" "${PIDS[$index]}")
      like=$(rate "$LIKE_PORT" none "$LIKE_PID")
      reference=$(rate "$REFERENCE_PORT" none "$REFERENCE_PID")
    fi
    read -r plainrest plainrest_cpu <<<"$plainrest"; read -r reference reference_cpu <<<"$reference"
    read -r like like_cpu <<<"$like"
    [ "$plainrest" = errors ] || [ "$reference" = errors ] || [ "$like" = errors ] && { echo "a request failed" >&2; exit 1; }
    ratio=$(awk -v a="$plainrest" -v b="$reference" 'BEGIN { printf "%.2f", a / b }')
    like_ratio=$(awk -v a="$plainrest" -v b="$like" 'BEGIN { printf "%.2f", a / b }')
    RATIOS[$index]+="$ratio "
    CPU_RATIOS[$index]+="$(awk -v a="$plainrest_cpu" -v b="$reference_cpu" 'BEGIN { printf "%.2f", b / a }') "
    LIKE_RATIOS[$index]+="$like_ratio "
    LIKE_CPU_RATIOS[$index]+="$(awk -v a="$plainrest_cpu" -v b="$like_cpu" 'BEGIN { printf "%.2f", b / a }') "
    line="$line  ${CHECKOUTS[$index]##*/}: $plainrest / reference $reference = $ratio, / like for like $like = $like_ratio"
    line="$line (CPU µs $plainrest_cpu / $reference_cpu / $like_cpu)"
  done
  echo "$line"
done
for index in "${!CHECKOUTS[@]}"; do
  echo "${CHECKOUTS[$index]}: median ratio $(echo "${RATIOS[$index]}" | median) (rounds: ${RATIOS[$index]})"
  echo "${CHECKOUTS[$index]}: median of the reference's CPU per answer over plainrest's" \
    "$(echo "${CPU_RATIOS[$index]}" | median)"
  echo "${CHECKOUTS[$index]}: like for like, median ratio $(echo "${LIKE_RATIOS[$index]}" | median)" \
    "(rounds: ${LIKE_RATIOS[$index]}); CPU $(echo "${LIKE_CPU_RATIOS[$index]}" | median)"
done
