// The operator's page as HTML: the gateway's health, the tool sessions this replica runs
// (with a stop button each), usage per tool over the last day, week and month with a chart of
// calls per day, and the latest errors. Plain forms and tables, no script; every value from
// outside goes through escapeHtml.
import { escapeHtml } from "../oauth/pages.ts";
import type { UsageRow } from "../audit/usage.ts";
import { callsChart } from "./chart.ts";
import type { AdminUsage } from "./usage-view.ts";

export interface LiveToolSession {
  instance: string;
  person: string;
  tool: string;
  revision: string;
  backend: string;
  since: number;
  pid?: number;
  jobId?: string;
  cpuSeconds?: number;
  rssBytes?: number;
}

export interface Health {
  version: string;
  uptimeSeconds: number;
  store: "ok" | "failing";
  sessions: number;
  sessionsCap: number;
  auditSink: string;
  auditDropped: number;
  spansDropped: number;
}

export interface AdminView {
  user: string;
  /** Where the forms post: the page itself. */
  action: string;
  /** The page's CSRF token, bound to the browser session and the person. */
  csrf: string;
  health: Health;
  sessions: LiveToolSession[];
  /** Undefined when the audit trail is off or has no lines yet; `note` says which. */
  usage?: AdminUsage;
  note?: string;
  now: number;
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f6;color:#111827}
header{display:flex;justify-content:space-between;align-items:center;padding:.8rem 1.5rem;background:#1e3a8a;color:#fff}
header h1{font-size:1.2rem;margin:0}header form{margin:0}
main{max-width:72rem;margin:0 auto;padding:1rem 1.5rem}
section{background:#fff;border-radius:10px;box-shadow:0 1px 3px rgba(0,0,0,.1);padding:1rem 1.25rem;margin:1rem 0;overflow-x:auto}
h2{font-size:1.05rem;margin:0 0 .6rem}h3{font-size:.95rem;margin:1rem 0 .4rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid #e5e7eb;white-space:nowrap}
th{color:#374151;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}
.ok{color:#166534;font-weight:600}.bad{color:#991b1b;font-weight:600}.muted{color:#6b7280}
button{padding:.3rem .7rem;border:0;border-radius:6px;background:#dc2626;color:#fff;font-weight:600;cursor:pointer}
header button{background:#e5e7eb;color:#111827}
dl{display:grid;grid-template-columns:repeat(auto-fill,minmax(11rem,1fr));gap:.5rem;margin:0}
dt{font-size:.8rem;color:#4b5563}dd{margin:0;font-weight:600}
.chart{width:100%;max-width:40rem;height:auto}
`;

function age(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

function mb(bytes: number | undefined): string {
  return bytes === undefined ? "—" : `${(bytes / 1048576).toFixed(1)} MB`;
}

function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
}

function healthSection(h: Health): string {
  const item = (term: string, value: string, cls = ""): string => `<div><dt>${term}</dt><dd${cls ? ` class="${cls}"` : ""}>${value}</dd></div>`;
  return `<section aria-labelledby="health"><h2 id="health">Health</h2><dl>
${item("Store", h.store === "ok" ? "answering" : "not answering", h.store === "ok" ? "ok" : "bad")}
${item("Tool sessions here", `${h.sessions} of ${h.sessionsCap}`)}
${item("Up for", age(h.uptimeSeconds))}
${item("Audit trail", escapeHtml(h.auditSink))}
${item("Audit lines dropped", String(h.auditDropped), h.auditDropped > 0 ? "bad" : "")}
${item("Spans dropped", String(h.spansDropped), h.spansDropped > 0 ? "bad" : "")}
${item("hubmcp", escapeHtml(h.version))}
</dl></section>`;
}

function sessionsSection(v: AdminView): string {
  const rows = v.sessions.map(
    (
      s,
    ) => `<tr><td>${escapeHtml(s.person)}</td><td>${escapeHtml(s.tool)}</td><td>${escapeHtml(s.revision)}</td><td>${escapeHtml(s.backend)}${s.jobId ? ` (job ${escapeHtml(s.jobId)})` : ""}</td>
<td title="${new Date(s.since).toISOString()}">${age((v.now - s.since) / 1000)} ago</td><td class="n">${s.cpuSeconds === undefined ? "—" : `${s.cpuSeconds.toFixed(1)} s`}</td><td class="n">${mb(s.rssBytes)}</td>
<td><form method="post" action="${escapeHtml(v.action)}">${hidden("action", "stop-session")}${hidden("instance", s.instance)}${hidden("csrf", v.csrf)}<button type="submit" aria-label="Stop ${escapeHtml(s.person)}'s ${escapeHtml(s.tool)} session">Stop</button></form></td></tr>`,
  );
  const body = rows.length > 0 ? rows.join("\n") : `<tr><td colspan="8" class="muted">No tool session runs on this replica.</td></tr>`;
  return `<section aria-labelledby="sessions"><h2 id="sessions">Live tool sessions (this replica)</h2>
<table><thead><tr><th>Person</th><th>Tool</th><th>Revision</th><th>Backend</th><th>Since</th><th>CPU</th><th>Memory</th><th></th></tr></thead><tbody>
${body}
</tbody></table></section>`;
}

function usageTable(title: string, rows: readonly UsageRow[]): string {
  const cells = rows.map(
    (r) =>
      `<tr><td>${escapeHtml(r.tool)}</td><td>${escapeHtml(r.key)}</td><td class="n">${r.people}</td><td class="n">${r.sessions}</td><td class="n">${r.calls}</td><td class="n">${r.errors}</td><td class="n">${r.p50Ms ?? "—"}</td><td class="n">${r.p95Ms ?? "—"}</td><td class="n">${age(r.sessionSeconds)}</td></tr>`,
  );
  const body = cells.length > 0 ? cells.join("\n") : `<tr><td colspan="9" class="muted">No use.</td></tr>`;
  return `<h3>${title}</h3><table><thead><tr><th>Tool</th><th>Revision</th><th>People</th><th>Sessions</th><th>Calls</th><th>Errors</th><th>p50 ms</th><th>p95 ms</th><th>Session time</th></tr></thead><tbody>
${body}
</tbody></table>`;
}

function usageSection(v: AdminView): string {
  if (!v.usage) return `<section aria-labelledby="usage"><h2 id="usage">Usage</h2><p class="muted">${escapeHtml(v.note ?? "")}</p></section>`;
  const u = v.usage;
  return `<section aria-labelledby="usage"><h2 id="usage">Usage</h2>
<h3>Calls per day, last 30 days</h3>${callsChart(u.perDay)}
${usageTable("Last 24 hours", u.day)}${usageTable("Last 7 days", u.week)}${usageTable("Last 30 days", u.month)}</section>`;
}

function errorsSection(v: AdminView): string {
  const errors = v.usage?.errors ?? [];
  const rows = errors.map(
    (e) =>
      `<tr><td>${escapeHtml(e.time)}</td><td>${escapeHtml(e.event)}</td><td>${escapeHtml(e.person ?? "—")}</td><td>${escapeHtml(e.tool ?? "—")}</td><td>${escapeHtml(e.name ?? "")}</td><td class="n">${e.status ?? ""}</td><td>${escapeHtml(e.reason ?? "")}</td></tr>`,
  );
  const body = rows.length > 0 ? rows.join("\n") : `<tr><td colspan="7" class="muted">No errors in the last 30 days.</td></tr>`;
  return `<section aria-labelledby="errors"><h2 id="errors">Recent errors</h2>
<table><thead><tr><th>Time</th><th>Event</th><th>Person</th><th>Tool</th><th>Name</th><th>Status</th><th>Reason</th></tr></thead><tbody>
${body}
</tbody></table></section>`;
}

export function adminPage(v: AdminView): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Hub operations</title><style>${STYLE}</style></head>
<body><header><h1>Hub operations</h1><form method="post" action="${escapeHtml(v.action)}"><span>${escapeHtml(v.user)}</span> ${hidden("action", "sign-out")}${hidden("csrf", v.csrf)}<button type="submit">Sign out</button></form></header>
<main>${healthSection(v.health)}${sessionsSection(v)}${usageSection(v)}${errorsSection(v)}</main></body></html>
`;
}
