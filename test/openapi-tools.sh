#!/usr/bin/env bash
# The OpenAPI document through the tools other people use (README: The OpenAPI document):
# Redocly's CLI, Spectral's CLI (the spectral:oas and OWASP rulesets), and a full walk of the
# API — a Postman collection generated from the document by openapi-to-postmanv2, run by
# newman through Prism as a validating proxy — against a fresh server on 127.0.0.1. Exits
# non-zero if Redocly or spectral:oas finds anything, if a request of the collection is not
# answered 2xx, or if Prism reports a response that breaks the document.
#
# The tools are installed outside the repository, into $TOOLS (default ../plainrest-openapi-tools),
# the first time; that needs the npm registry. Not part of `npm test`, which runs the
# linters offline through their libraries (test/openapi-lint.test.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=${TOOLS:-../plainrest-openapi-tools}
mkdir -p "$TOOLS"
TOOLS=$(cd "$TOOLS" && pwd)
BIN="$TOOLS/node_modules/.bin"
export SCARF_ANALYTICS=false npm_config_update_notifier=false

if [ ! -x "$BIN/prism" ] || [ ! -x "$BIN/newman" ]; then
  echo "openapi-tools: installing the tools into $TOOLS"
  npm install --prefix "$TOOLS" --no-audit --no-fund @redocly/cli @stoplight/spectral-cli \
    @stoplight/spectral-owasp-ruleset @stoplight/prism-cli openapi-to-postmanv2 newman >/dev/null
fi

npm run build >/dev/null
WORK=$(mktemp -d)
SERVER_PID='' PROXY_PID=''
cleanup() {
  [ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
node dist/plainrest.mjs openapi > "$WORK/openapi.json"

echo "== Redocly, recommended rules"
"$BIN/redocly" lint "$WORK/openapi.json"

echo "== Spectral, spectral:oas"
printf 'extends: ["spectral:oas"]\n' > "$TOOLS/oas.yaml"
(cd "$TOOLS" && "$BIN/spectral" lint --fail-severity=hint -r oas.yaml "$WORK/openapi.json")

echo "== Spectral, OWASP (what it still finds does not apply here: see the README)"
printf 'extends: ["@stoplight/spectral-owasp-ruleset"]\n' > "$TOOLS/owasp.yaml"
(cd "$TOOLS" && "$BIN/spectral" lint -r owasp.yaml "$WORK/openapi.json" | tail -n 2) || true

start_server() { # a fresh server on its own data directory: sets SERVER_PID, SERVER_URL and TOKEN
  node dist/plainrest.mjs --port 0 --data-dir "$WORK/$1" --log-format off > "$WORK/$1.log" 2>&1 &
  SERVER_PID=$!
  until grep -q '^plainrest listening on ' "$WORK/$1.log"; do
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/$1.log"; exit 1; }
    sleep 0.2
  done
  SERVER_URL=$(sed -n 's/^plainrest listening on //p' "$WORK/$1.log")
  TOKEN=$(node dist/plainrest.mjs token admin@example.com --data-dir "$WORK/$1" 2>/dev/null)
}

run_collection() { # base URL, report name
  "$BIN/newman" run "$WORK/collection.json" --env-var "baseUrl=$1" --env-var "bearerToken=$TOKEN" \
    --reporters cli,json --reporter-json-export "$WORK/$2.json" > "$WORK/$2.log" || { cat "$WORK/$2.log"; exit 1; }
}

# parametersResolution=Example: the default, Schema, sends type placeholders instead of the examples
"$BIN/openapi2postmanv2" -s "$WORK/openapi.json" -o "$WORK/collection.json" -O parametersResolution=Example >/dev/null

echo "== The generated collection with newman against a fresh server: every request answered 2xx"
start_server direct
run_collection "$SERVER_URL" newman
kill "$SERVER_PID"; wait "$SERVER_PID" || true; SERVER_PID=''
node - "$WORK/newman.json" <<'EOF'
const executions = JSON.parse(require('node:fs').readFileSync(process.argv[2], 'utf8')).run.executions;
const failed = executions.filter((run) => !(run.response && run.response.code >= 200 && run.response.code < 300));
for (const run of failed) console.log(`not 2xx: ${run.item.name}: ${run.response ? run.response.code : 'no answer'}`);
console.log(`newman: ${executions.length - failed.length} of ${executions.length} requests answered 2xx`);
process.exit(failed.length === 0 ? 0 : 1);
EOF

# Prism answers HEAD with a 500 of its own (it parses the empty body as JSON), so only its violations count here
echo "== The same collection through Prism as a validating proxy, against another fresh server"
start_server proxied
PROXY_PORT=$(node -e "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")
"$BIN/prism" proxy "$WORK/openapi.json" "$SERVER_URL" --errors --host 127.0.0.1 --port "$PROXY_PORT" > "$WORK/prism.log" 2>&1 &
PROXY_PID=$!
until grep -q 'Prism is listening' "$WORK/prism.log"; do
  kill -0 "$PROXY_PID" 2>/dev/null || { cat "$WORK/prism.log"; exit 1; }
  sleep 0.2
done
run_collection "http://127.0.0.1:$PROXY_PORT" prism-walk
VIOLATIONS=$(grep -ci 'violation' "$WORK/prism.log" || true)
grep -i 'violation' "$WORK/prism.log" | head -n 20 || true
echo "Prism: $VIOLATIONS response violations"
[ "$VIOLATIONS" = 0 ]
