// The Content-Security-Policy of an MCP App's frame, built from the domains its resource
// declares in `_meta.ui.csp` (MCP Apps 2026-01-26, "Security"). The console page names them
// in the frame's URL (`frame.html?csp=<json>`); whatever arrives there is only a request:
// each entry must be a bare origin (scheme, host with an optional `*.` label, port), and
// anything else is dropped, so a query can never add a keyword, a path or a directive.
// Never looser than the spec's default: no 'self' (the frame's URL is the console's origin,
// which the app must not reach), no network unless a domain is declared for it.

const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[a-z0-9](?:[a-z0-9-]{0,62})(?:\.[a-z0-9](?:[a-z0-9-]{0,62}))*(?::\d{1,5})?$/i;
/** Most origins one list may name; the rest are ignored. */
const MAX_DOMAINS = 32;

export interface FrameCsp {
  connectDomains: string[];
  resourceDomains: string[];
  frameDomains: string[];
  baseUriDomains: string[];
}

const KEYS = ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"] as const;

function origins(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const out: string[] = [];
  for (const entry of value) {
    if (typeof entry !== "string" || entry.length > 253 || !ORIGIN.test(entry)) continue;
    const origin = entry.toLowerCase();
    if (!out.includes(origin)) out.push(origin);
    if (out.length === MAX_DOMAINS) break;
  }
  return out;
}

/** The declared domains in the `csp` query parameter (JSON), reduced to valid origins. */
export function parseFrameCsp(query: string | null): FrameCsp {
  let declared: unknown = null;
  if (query && query.length <= 16_384) {
    try {
      declared = JSON.parse(query);
    } catch {
      declared = null;
    }
  }
  const record = typeof declared === "object" && declared !== null ? (declared as Record<string, unknown>) : {};
  const csp = {} as FrameCsp;
  for (const key of KEYS) csp[key] = origins(record[key]);
  return csp;
}

/** The frame's policy: sandboxed (opaque origin), inline code allowed, network only where declared. */
export function framePolicy(csp: FrameCsp): string {
  const list = (base: string, extra: string[]): string => [base, ...extra].filter(Boolean).join(" ") || "'none'";
  return [
    "sandbox allow-scripts",
    "default-src 'none'",
    `script-src ${list("'unsafe-inline'", csp.resourceDomains)}`,
    `style-src ${list("'unsafe-inline'", csp.resourceDomains)}`,
    `img-src ${list("data: blob:", csp.resourceDomains)}`,
    `media-src ${list("data: blob:", csp.resourceDomains)}`,
    `font-src ${list("data:", csp.resourceDomains)}`,
    `connect-src ${list("", csp.connectDomains)}`,
    `frame-src ${list("", csp.frameDomains)}`,
    `base-uri ${list("", csp.baseUriDomains)}`,
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join("; ");
}
