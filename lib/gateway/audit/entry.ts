// One line of the audit trail: who did what with which tool, how it went and how long it
// took. Only these fields are ever written, each bounded; never arguments, results, tokens
// or cookies (the callers have none of those to give: see the type).

export type AuditEvent =
  | "tool.call"
  | "resource.read"
  | "prompt.get"
  | "sign-in"
  | "grant.approved"
  | "grant.revoked"
  | "session.start"
  | "session.start-failed"
  | "session.stop"
  | "registry.change"
  | "token.create"
  | "token.revoke";

export interface AuditEntry {
  event: AuditEvent;
  person?: string;
  /** Who made a change to \`person\`'s things when it was not they: \`cli:uid=N\` on the host, or an operator's account. */
  by?: string;
  tool?: string;
  revision?: string;
  /** The JSON-RPC method, or the HTTP route's (`POST tools/{name}`). */
  method?: string;
  /** The tool, prompt or resource the request named. */
  name?: string;
  outcome: "ok" | "error";
  status?: number;
  /** How long the request took; for `session.stop`, how long the tool session ran. */
  ms?: number;
  bytesIn?: number;
  bytesOut?: number;
  client?: string;
  traceId?: string;
  /** How a tool session runs: `command`, `app`, `url`, `slurm`, … */
  backend?: string;
  /** A stable code saying why, for failures and stops. */
  reason?: string;
  /** For `registry.change`: the tool in brief before and after (revisions, default, groups; never paths or commands). */
  before?: string;
  after?: string;
  /** For `token.*`: the API token's public id (the part after `hubmcp_`, never its secret) and when it expires. */
  tokenId?: string;
  expiresAt?: string;
}

const TEXT_MAX = 200;

/** What methods each event stands for, on the tool routes: the others are not audited. */
export const AUDITED_METHODS: Readonly<Record<string, AuditEvent>> = {
  "tools/call": "tool.call",
  "resources/read": "resource.read",
  "prompts/get": "prompt.get",
};

function text(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  // JSON escapes line breaks, so no name can start a line of its own; length is all to bound.
  return v.length > TEXT_MAX ? `${v.slice(0, TEXT_MAX)}…` : v;
}

/** The entry as its JSON line (with its line break), fields in a fixed order. */
export function auditLine(e: AuditEntry, now = Date.now()): string {
  const line = {
    time: new Date(now).toISOString(),
    event: e.event,
    person: text(e.person),
    by: text(e.by),
    tool: text(e.tool),
    revision: text(e.revision),
    method: text(e.method),
    name: text(e.name),
    outcome: e.outcome,
    status: e.status,
    ms: e.ms === undefined ? undefined : Math.round(e.ms * 10) / 10,
    bytesIn: e.bytesIn,
    bytesOut: e.bytesOut,
    client: text(e.client),
    traceId: e.traceId,
    backend: text(e.backend),
    reason: text(e.reason),
    before: text(e.before),
    after: text(e.after),
    tokenId: text(e.tokenId),
    expiresAt: e.expiresAt,
  };
  return `${JSON.stringify(line)}\n`;
}
