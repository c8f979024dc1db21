// gateway.json's `connector` section: how `{publicUrl}/mcp` pages and how long it trusts
// a tool's catalog. Parsed apart from ./gateway-config.ts, which calls it for that section.
import { s, type Converted, type Infer, problem, section, type Fail } from "../../schema/index.ts";

/** The `connector` section as written in gateway.json. */
export const connectorSchema = problem(
  s.object(
    {
      /** Items per `tools/list` page (and the other lists); 100. */
      pageSize: problem(s.integer({ minimum: 1, maximum: 1000 }).default(100), "must be a whole number from 1 to 1000"),
      catalogMaxAgeSeconds: problem(s.number({ minimum: 0, maximum: 86_400 }).default(600), "must be a number from 0 to 86400"),
    },
    { additionalProperties: false },
  ),
  "must be an object",
);

/** The section as the code reads it: the catalog's age in milliseconds. */
export type ConnectorSettings = Converted<
  Infer<typeof connectorSchema>,
  {
    /** A catalog older than this is refilled at the next listing; 10 min. */
    catalogMaxAgeMs: number;
  },
  "catalogMaxAgeSeconds"
>;

const CONNECTOR = section(connectorSchema);

export function parseConnectorSettings(v: unknown, fail: Fail): ConnectorSettings {
  const { catalogMaxAgeSeconds, ...rest } = CONNECTOR.check(v ?? {}, "connector", fail);
  return { ...rest, catalogMaxAgeMs: catalogMaxAgeSeconds * 1000 };
}
