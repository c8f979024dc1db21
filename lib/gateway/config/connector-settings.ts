// gateway.json's `connector` section: how `{publicUrl}/mcp` pages and how long it trusts
// a tool's catalog. Parsed apart from ./gateway-config.ts, which calls it for that section.
import { s, problem, section, type Fail } from "../../schema/index.ts";

export interface ConnectorSettings {
  /** Items per `tools/list` page (and the other lists); 100. */
  readonly pageSize: number;
  /** A catalog older than this is refilled at the next listing; 10 min. */
  readonly catalogMaxAgeMs: number;
}

export const DEFAULT_CONNECTOR: ConnectorSettings = { pageSize: 100, catalogMaxAgeMs: 10 * 60_000 };

/** The `connector` section as written in gateway.json. */
export const connectorSchema = problem(
  s.object(
    {
      pageSize: problem(s.integer({ minimum: 1, maximum: 1000 }).default(100), "must be a whole number from 1 to 1000"),
      catalogMaxAgeSeconds: problem(s.number({ minimum: 0, maximum: 86_400 }).default(600), "must be a number from 0 to 86400"),
    },
    { additionalProperties: false },
  ),
  "must be an object",
);

const CONNECTOR = section(connectorSchema);

export function parseConnectorSettings(v: unknown, fail: Fail): ConnectorSettings {
  const o = CONNECTOR.check(v ?? {}, "connector", fail);
  return { pageSize: o.pageSize, catalogMaxAgeMs: o.catalogMaxAgeSeconds * 1000 };
}
