// gateway.json's `connector` section: how `{publicUrl}/mcp` pages and how long it trusts
// a tool's catalog. Parsed apart from ../config.ts, which calls it for that section.

export interface ConnectorSettings {
  /** Items per `tools/list` page (and the other lists); 100. */
  readonly pageSize: number;
  /** A catalog older than this is refilled at the next listing; 10 min. */
  readonly catalogMaxAgeMs: number;
}

export const DEFAULT_CONNECTOR: ConnectorSettings = { pageSize: 100, catalogMaxAgeMs: 10 * 60_000 };

type Fail = (key: string, problem: string) => never;

export function parseConnectorSettings(v: unknown, fail: Fail): ConnectorSettings {
  if (v === undefined) return DEFAULT_CONNECTOR;
  if (typeof v !== "object" || v === null || Array.isArray(v)) return fail("connector", "must be an object");
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== "pageSize" && k !== "catalogMaxAgeSeconds") fail(`connector.${k}`, "is not a known key");
  const pageSize = o.pageSize ?? DEFAULT_CONNECTOR.pageSize;
  if (typeof pageSize !== "number" || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000)
    fail("connector.pageSize", "must be a whole number from 1 to 1000");
  const age = o.catalogMaxAgeSeconds ?? DEFAULT_CONNECTOR.catalogMaxAgeMs / 1000;
  if (typeof age !== "number" || !Number.isFinite(age) || age < 0 || age > 86_400) fail("connector.catalogMaxAgeSeconds", "must be a number from 0 to 86400");
  return { pageSize: pageSize as number, catalogMaxAgeMs: (age as number) * 1000 };
}
