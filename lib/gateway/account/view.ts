// The account page's HTML: the person's API tokens, connected apps and tool sessions, each
// with a plain form (no scripts), and a new token shown once with a hub_bridge config to
// paste. Every value from outside goes through escapeHtml; the layout is the sign-in pages'.
import type { TokenInfo } from "../identity/api-tokens.ts";
import type { ConnectedApp } from "../contracts/interfaces.ts";
import { escapeHtml, hidden, page } from "../oauth/pages.ts";

export interface ToolSessionRow {
  readonly instance: string;
  readonly tool: string;
  readonly revision: string;
  readonly since: number;
}

export interface AccountView {
  readonly user: string;
  readonly hub: string;
  readonly publicUrl: string;
  readonly csrf: string;
  readonly tokens: readonly TokenInfo[];
  readonly apps: readonly ConnectedApp[];
  readonly sessions: readonly ToolSessionRow[];
  /** Token lifetimes offered, in days; the first is the default. */
  readonly lifetimes: readonly number[];
  readonly notice?: string;
  readonly error?: string;
  /** Just created: shown on this answer only. */
  readonly created?: { readonly token: string; readonly name: string };
}

const WIDE = `<style>
main{max-width:48rem}
table{width:100%;border-collapse:collapse;margin:.5rem 0 1rem;font-size:.95rem}
th,td{text-align:left;padding:.4rem .3rem;border-bottom:1px solid #e5e7eb;vertical-align:middle}
th{font-size:.8rem;color:#4b5563;font-weight:600}
td form{margin:0}td button{width:auto;margin:0;padding:.35rem .8rem;font-size:.9rem}
h2{font-size:1.1rem;margin:1.75rem 0 .25rem}
pre,textarea{width:100%;font:.85rem/1.4 ui-monospace,monospace;background:#f9fafb;border:1px solid #d1d5db;border-radius:8px;padding:.6rem;overflow-x:auto}
.notice{padding:.6rem .8rem;border-radius:8px;background:#dcfce7;color:#166534}
.new{padding:.8rem 1rem;border-radius:8px;background:#fef9c3;margin:1rem 0}
select{padding:.6rem;font-size:1rem;border:1px solid #9ca3af;border-radius:8px}
</style>`;

function when(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function at(iso: string | undefined, none: string): string {
  return iso === undefined ? none : when(Date.parse(iso));
}

function action(csrf: string, name: string, id: string, label: string, what: string): string {
  return `<form method="post" action="account">${hidden("csrf", csrf)}${hidden("action", name)}${hidden("id", id)}<button type="submit" class="secondary" aria-label="${escapeHtml(`${label} ${what}`)}">${escapeHtml(label)}</button></form>`;
}

function table(headings: readonly string[], rows: readonly string[][], empty: string): string {
  if (rows.length === 0) return `<p class="muted">${escapeHtml(empty)}</p>`;
  const head = headings.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join("");
  return `<table><thead><tr>${head}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("")}</tbody></table>`;
}

/** The hub_bridge entry for Claude Desktop's config, with this token and hub filled in (docs/clients.md has the rest). */
export function bridgeConfig(token: string, publicUrl: string): string {
  const entry = { command: "node", args: ["/opt/hubmcp/dist/cli/hub_bridge.js"], env: { HUB_TOKEN: token, HUB_API: publicUrl, HUB_TOOLS: "*" } };
  return JSON.stringify({ mcpServers: { hub: entry } }, null, 2);
}

function created(view: AccountView): string {
  if (!view.created) return "";
  const { token, name } = view.created;
  return `<section class="new" aria-labelledby="new-token"><h2 id="new-token">Your new token “${escapeHtml(name)}”</h2>
<p><strong>Copy it now: it is shown only this once.</strong> Anyone who has it can use the hub as you.</p>
<label for="token">Token</label><textarea id="token" rows="2" readonly>${escapeHtml(token)}</textarea>
<label for="bridge">For <code>hub_bridge</code> (Claude Desktop: Settings → Developer → Edit Config)</label>
<pre id="bridge">${escapeHtml(bridgeConfig(token, view.publicUrl))}</pre>
<p class="muted"><code>/opt/hubmcp</code> is where hubmcp is on your computer; with hubmcp installed globally, <code>"command": "hub_bridge"</code> and no <code>args</code>. <code>HUB_TOOLS</code> <code>*</code> is every tool you may use.</p></section>`;
}

export function accountPage(view: AccountView): string {
  const csrf = view.csrf;
  const tokens = view.tokens.map((t) => [
    escapeHtml(t.name ?? "(no name)"),
    `<code>${escapeHtml(t.id)}</code>`,
    escapeHtml(when(Date.parse(t.createdAt))),
    escapeHtml(at(t.expiresAt, "never")),
    escapeHtml(at(t.lastUsedAt, "never")),
    action(csrf, "revoke-token", t.id, "Revoke", `token ${t.name ?? t.id}`),
  ]);
  const apps = view.apps.map((a) => [
    escapeHtml(a.clientName),
    escapeHtml(when(a.createdAt)),
    escapeHtml(a.usedAt === undefined ? "—" : when(a.usedAt)),
    action(csrf, "revoke-app", a.id, "Revoke", a.clientName),
  ]);
  const sessions = view.sessions.map((s) => [
    escapeHtml(s.tool),
    escapeHtml(s.revision),
    escapeHtml(when(s.since)),
    action(csrf, "stop-session", s.instance, "Stop", `${s.tool} ${s.revision}`),
  ]);
  const options = view.lifetimes.map((d) => `<option value="${d}">${d} days</option>`).join("");
  const notice = view.notice ? `<p class="notice" role="status">${escapeHtml(view.notice)}</p>` : "";
  const error = view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : "";
  return page(
    "Your account",
    `${WIDE}<h1>Your account on ${escapeHtml(view.hub)}</h1>
<p class="muted">Signed in as <strong>${escapeHtml(view.user)}</strong>.</p>
${notice}${error}${created(view)}
<h2>API tokens</h2>
<p class="muted">For <code>hub_bridge</code> and programs that send <code>Authorization: Bearer</code>. An expired or revoked token stops working at once.</p>
${table(["Name", "Id", "Created", "Expires", "Last used", ""], tokens, "You have no API tokens.")}
<form method="post" action="account">${hidden("csrf", csrf)}${hidden("action", "create-token")}
<label for="name">New token's name</label>
<input type="text" id="name" name="name" maxlength="64" required placeholder="laptop">
<label for="expires">Expires after</label>
<select id="expires" name="expires">${options}</select>
<button type="submit">Create token</button></form>
<h2>Connected apps</h2>
<p class="muted">Applications you allowed when they asked you to sign in. Revoking one signs it out: it has to ask you again.</p>
${table(["Application", "Allowed", "Last used", ""], apps, "No application is connected.")}
<h2>Tool sessions</h2>
<p class="muted">Tools running for you now. Stopping one ends its work in progress; the next request starts it afresh.</p>
${table(["Tool", "Revision", "Since", ""], sessions, "No tool is running for you.")}`,
  );
}
