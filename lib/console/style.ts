// The console's stylesheet: system fonts, light and dark from prefers-color-scheme,
// one column on a phone, a visible focus ring everywhere.
export const consoleStyle = `:root {
  --bg: #f6f7f9; --fg: #1b1f24; --muted: #57606a; --card: #ffffff; --line: #d0d7de;
  --accent: #0a5bd3; --accent-fg: #ffffff; --focus: #bf3989; --good: #1a7f37; --bad: #c62828;
  --busy: #8a5a00; --code-bg: #eef1f4; --err-bg: #fdecea;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f1217; --fg: #e6edf3; --muted: #9aa4af; --card: #171b22; --line: #30363d;
    --accent: #4d9bff; --accent-fg: #0b0e13; --focus: #ff7bc4; --good: #4ac26b; --bad: #ff7b72;
    --busy: #e3b341; --code-bg: #21262d; --err-bg: #3a1d1d;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.skip { position: absolute; left: -999px; top: 0; background: var(--card); padding: .5rem 1rem; z-index: 2; }
.skip:focus { left: .5rem; }
.top { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; justify-content: space-between; align-items: end; padding: 1rem max(1rem, calc(50% - 30rem)); border-bottom: 1px solid var(--line); background: var(--card); }
h1 { margin: 0; font-size: 1.5rem; line-height: 1.2; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
h4 { margin: .75rem 0 .25rem; font-size: .95rem; }
main { max-width: 62rem; margin: 0 auto; padding: .5rem 1rem 2rem; }
footer { text-align: center; padding: 1rem; font-size: .85rem; }
.muted { color: var(--muted); margin: .25rem 0 0; }
code, pre, textarea { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; }
code { background: var(--code-bg); padding: 0 .3em; border-radius: 4px; overflow-wrap: anywhere; }
.instructions { border-left: 4px solid var(--accent); padding: .25rem .75rem; background: var(--card); }
#status { margin: .75rem 0; font-weight: 600; }
.good { color: var(--good); } .bad { color: var(--bad); } .busy { color: var(--busy); }
.cards { display: grid; gap: .75rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
.card > summary { cursor: pointer; padding: .75rem 1rem; display: flex; flex-wrap: wrap; gap: .25rem .5rem; align-items: center; list-style-position: inside; }
.card > summary::-webkit-details-marker { display: none; }
.card > summary::before { content: "▸"; color: var(--muted); }
.card[open] > summary::before { content: "▾"; }
.card[open] > summary { border-bottom: 1px solid var(--line); }
.card .title { font-weight: 600; }
.card-body { padding: .5rem 1rem 1rem; min-width: 0; }
.desc { margin: .25rem 0 .75rem; }
.badge { font-size: .75rem; border: 1px solid var(--line); border-radius: 999px; padding: 0 .5rem; color: var(--muted); }
.fields { display: grid; gap: .75rem; }
.field { display: grid; gap: .2rem; }
.field.check { grid-template-columns: auto 1fr; align-items: center; column-gap: .5rem; }
.field.check .help, .field.check .field-error { grid-column: 1 / -1; }
label, legend { font-weight: 600; }
.required { color: var(--bad); font-weight: 400; font-size: .85em; }
.hint { color: var(--muted); font-weight: 400; font-size: .85em; }
.help { margin: 0; color: var(--muted); font-size: .9rem; }
.field-error, .form-error { margin: 0; color: var(--bad); font-size: .9rem; font-weight: 600; }
input, select, textarea, button { font: inherit; color: inherit; }
input:not([type=checkbox]), select, textarea { width: 100%; max-width: 32rem; padding: .45rem .6rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); min-height: 2.5rem; }
input[type=checkbox] { width: 1.25rem; height: 1.25rem; accent-color: var(--accent); }
[aria-invalid=true] { border-color: var(--bad) !important; box-shadow: 0 0 0 1px var(--bad); }
fieldset.nested { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem .75rem; margin: 0; min-width: 0; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: .75rem; }
button { min-height: 2.5rem; padding: .4rem 1rem; border: 1px solid var(--line); border-radius: 6px; background: var(--card); cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-fg); font-weight: 600; }
button:disabled { opacity: .5; cursor: not-allowed; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
#tools-section:focus { outline: none; }
.output:empty { display: none; }
.run { margin-top: 1rem; border-top: 1px dashed var(--line); padding-top: .75rem; min-width: 0; }
.run-status { margin: 0 0 .25rem; font-weight: 600; }
.progress-row { display: flex; align-items: center; gap: .75rem; flex-wrap: wrap; }
progress { width: min(100%, 20rem); height: 1rem; accent-color: var(--accent); }
.progress-text { color: var(--muted); font-size: .9rem; }
.log { margin: .5rem 0; padding: .5rem .75rem .5rem 2rem; background: var(--code-bg); border-radius: 6px; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .85rem; max-height: 16rem; overflow: auto; }
.log .level { font-weight: 700; text-transform: uppercase; font-size: .75rem; }
.log-warning .level, .log-notice .level { color: var(--busy); }
.log-error .level, .log-critical .level, .log-alert .level, .log-emergency .level { color: var(--bad); }
.ask { border: 2px solid var(--accent); border-radius: 8px; padding: .75rem; margin: .5rem 0; background: var(--bg); }
.ask-title { font-weight: 600; margin: 0 0 .5rem; }
.result { min-width: 0; }
.result pre, pre.text { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--code-bg); padding: .5rem .75rem; border-radius: 6px; margin: .5rem 0; max-height: 24rem; overflow: auto; }
.is-error { border-left: 4px solid var(--bad); padding-left: .75rem; background: var(--err-bg); border-radius: 4px; }
.error-title { color: var(--bad); font-weight: 700; margin: .25rem 0; }
.json { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .9rem; }
.json summary { cursor: pointer; }
.json ul { list-style: none; margin: 0; padding-left: 1.25rem; border-left: 1px dotted var(--line); }
.json .key { color: var(--muted); }
.shape { color: var(--muted); font-style: italic; }
.v-string { color: var(--good); } .v-number { color: var(--accent); } .v-boolean, .v-null { color: var(--busy); }
.leaf { overflow-wrap: anywhere; }
img.media, .resource img { max-width: 100%; height: auto; border-radius: 4px; }
audio { max-width: 100%; }
iframe.app { width: 100%; height: 28rem; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
.uri { margin: .25rem 0; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .85rem; overflow-wrap: anywhere; }
.mime { color: var(--muted); }
.messages { padding-left: 1.25rem; }
.log-level { display: flex; gap: .5rem; align-items: center; }
.log-level select { width: auto; }
@media (max-width: 40rem) {
  .top { padding: .75rem 1rem; }
  h1 { font-size: 1.25rem; }
  main { padding: .25rem .75rem 1.5rem; }
  .card > summary, .card-body { padding-left: .75rem; padding-right: .75rem; }
  .actions button { flex: 1 1 auto; }
}
@media (prefers-reduced-motion: reduce) { * { scroll-behavior: auto !important; } }
`;
