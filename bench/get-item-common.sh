# Shared by get-item-outside.sh and get-item-counted.sh (sourced, not run): the settings both start plainrest with,
# and the small steps both take.

export TOKEN_SECRET=outside-token-secret-outside-token-secret ADMIN_PASSWORD=outside-admin-password RATE_LIMIT=0

# A TCP port free on 127.0.0.1 a moment ago.
free_port() {
  node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}

# wait_for URL [SECONDS]: returns once URL answers; exits the script after SECONDS (30) without an answer.
wait_for() {
  local tries=$((${2:-30} * 10))
  for _ in $(seq "$tries"); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done
  echo "no answer from $1" >&2
  exit 1
}

# main_of CHECKOUT: what `npm start` runs there: the one file, or dist/main.js in a checkout from before it.
main_of() { if [ -f "$1/dist/plainrest.mjs" ]; then echo dist/plainrest.mjs; else echo dist/main.js; fi; }

# token_for CHECKOUT DATA EMAIL: a token for the user EMAIL of data directory DATA, minted by CHECKOUT's command line.
token_for() { (cd "$1" && DATA_DIR=$2 node "$(main_of "$1")" token "$3" 2>/dev/null); }

# last_id_of FILE: the largest id in a JSON array of records.
last_id_of() { node -e 'const all = require(process.argv[1]); console.log(Math.max(...all.map((p) => p.id)))' "$1"; }
