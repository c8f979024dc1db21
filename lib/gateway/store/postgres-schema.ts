// The tables of the Postgres store and how they come to be. Every start runs the
// migrations the database lacks, in one transaction under an advisory lock, so replicas
// starting together don't race; a database migrated by a newer hubmcp is refused rather
// than written in a shape this one doesn't know.
import { StoreConfigError } from "../contracts/store-errors.ts";

/** What the migration needs of a connection: plain queries. */
export interface SqlClient {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>>; rowCount: number | null }>;
}

/** Each entry takes the schema from its index to the next version; append, never edit. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE hubmcp_records (
     collection text NOT NULL,
     id text NOT NULL,
     value text NOT NULL,
     PRIMARY KEY (collection, id)
   )`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** A constant of our own for pg_advisory_xact_lock: "hubmcp" in ASCII. */
const MIGRATION_LOCK = 0x6875626d6370;

/** Runs inside a transaction of the caller's. */
export async function migrate(client: SqlClient): Promise<void> {
  await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
  await client.query("CREATE TABLE IF NOT EXISTS hubmcp_schema (version integer NOT NULL)");
  const { rows } = await client.query("SELECT version FROM hubmcp_schema");
  const current = rows.length === 0 ? 0 : Number(rows[0]!.version);
  if (current > SCHEMA_VERSION) {
    throw new StoreConfigError(
      "HUBMCP_STORE_SCHEMA_TOO_NEW",
      `the database has store schema version ${current}; this hubmcp knows up to ${SCHEMA_VERSION}: upgrade hubmcp`,
    );
  }
  for (let v = current; v < SCHEMA_VERSION; v++) await client.query(MIGRATIONS[v]!);
  if (rows.length === 0) await client.query("INSERT INTO hubmcp_schema (version) VALUES ($1)", [SCHEMA_VERSION]);
  else if (current < SCHEMA_VERSION) await client.query("UPDATE hubmcp_schema SET version = $1", [SCHEMA_VERSION]);
}
