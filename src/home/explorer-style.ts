// The home page's stylesheet, inlined in a <style> element whose hash the
// Content-Security-Policy lists (CSP Level 3 §8.3: a hash allows exactly this text).
// One column that reflows down to 320 px; wide tables scroll inside their own box;
// focus is always visible; colours keep a 4.5:1 contrast (WCAG 2.2 §1.4.3).

export const EXPLORER_STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #ffffff; --muted: #4a5561; --line: #d0d7de; --panel: #f4f6f8;
  --accent: #0b5cad; --ok: #116329; --warn: #8a4600; --bad: #a40e26; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --bg: #0d1117; --muted: #a8b3bf; --line: #3d444d; --panel: #161b22;
    --accent: #6cb6ff; --ok: #56d364; --warn: #e3b341; --bad: #ff7b72; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header, main, footer { max-width: 72rem; margin: 0 auto; padding: 0 1rem; }
header { padding-top: 1rem; }
h1 { margin: 0.5rem 0; font-size: 1.75rem; }
h1 small { font-weight: normal; color: var(--muted); }
h2 { margin-top: 2rem; border-bottom: 1px solid var(--line); padding-bottom: 0.25rem; }
h3 { margin-bottom: 0.25rem; }
a { color: var(--accent); }
code { overflow-wrap: anywhere; }
th code { overflow-wrap: normal; }
code, pre, textarea, input, select { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9rem; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 0.75rem; margin: 0.5rem 0;
  white-space: pre-wrap; overflow-wrap: anywhere; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--bg); padding: 0.5rem; z-index: 1; }
nav ul, .buttons { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; padding: 0; margin: 0.5rem 0; list-style: none; }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 0.5rem 0; }
fieldset label { margin-right: 1rem; display: inline-block; }
form.stack { display: grid; gap: 0.25rem; max-width: 48rem; }
form.stack label { font-weight: 600; margin-top: 0.5rem; }
.hint { color: var(--muted); font-weight: normal; font-size: 0.875rem; }
input, select, textarea { width: 100%; padding: 0.4rem; color: var(--fg); background: var(--bg); border: 1px solid var(--muted); border-radius: 4px; }
input[type="radio"] { width: auto; }
button { font: inherit; padding: 0.4rem 0.9rem; border-radius: 4px; border: 1px solid var(--accent); background: var(--accent); color: var(--bg); cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); }
form.stack button { justify-self: start; margin-top: 0.75rem; }
.error { color: var(--bad); font-weight: 600; }
.status { font-size: 1.1rem; }
.status-2, .status-3 { color: var(--ok); }
.status-4 { color: var(--warn); }
.status-5 { color: var(--bad); }
.table-wrap { overflow-x: auto; margin: 0.5rem 0; }
table { border-collapse: collapse; font-size: 0.9rem; }
th, td { border: 1px solid var(--line); padding: 0.3rem 0.5rem; text-align: left; vertical-align: top; }
th { background: var(--panel); }
.operation { border: 1px solid var(--line); border-radius: 6px; padding: 0.5rem 0.75rem; margin: 0.75rem 0; }
.operation h4 { margin: 0.25rem 0; display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: baseline; }
.method { font-family: ui-monospace, monospace; font-weight: 700; }
.operation ul { margin: 0.25rem 0; padding-left: 1.25rem; }
ul.live { list-style: none; padding: 0; margin: 0.5rem 0; }
ul.live li { border-left: 4px solid var(--line); padding: 0.25rem 0.5rem; margin: 0.25rem 0; overflow-wrap: anywhere; }
ul.live .live-created { border-color: var(--ok); }
ul.live .live-updated { border-color: var(--accent); }
ul.live .live-deleted { border-color: var(--bad); }
ul.live .live-notice { border-color: var(--warn); }
ul.live button { padding: 0 0.4rem; }
dl.statuses dt { font-weight: 700; margin-top: 0.5rem; }
dl.statuses dd { margin-left: 1.5rem; }
footer { margin-top: 3rem; padding-bottom: 2rem; color: var(--muted); }
`;
