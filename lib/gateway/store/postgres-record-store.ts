// The RecordStore on PostgreSQL, for replicas on different machines that share nothing
// but the database. One row per record, the value as the same JSON text the file store
// writes. The driver (`pg`) is an optional peer dependency, loaded only here and only
// when such a store is opened, so tool-server hosts never need it.
import { randomBytes } from "node:crypto";
import type { RecordStore } from "../contracts/interfaces.ts";
import { migrate, type SqlClient } from "./postgres-schema.ts";
import { checkCollection, encodeId } from "./record-names.ts";
import { StoreConfigError, StoreUnavailableError } from "../contracts/store-errors.ts";

/** The part of pg's Pool this store uses. */
interface Pool extends SqlClient {
  connect(): Promise<SqlClient & { release(destroy?: boolean): void }>;
  end(): Promise<void>;
  on(event: "error", listener: (err: Error) => void): unknown;
}

export interface PostgresStoreOptions {
  /** `postgres://user@host:port/db`; a password in it works but shows in `ps`. */
  url: string;
  /** The password, kept out of the URL (from HUBMCP_STORE_PASSWORD). */
  password?: string;
  /** Connections per process; 10. */
  maxConnections?: number;
}

// SQLSTATE classes that mean "the server is not there now", not "the query is wrong":
// connection exceptions, insufficient resources, operator intervention (shutdown, restart).
const UNAVAILABLE_STATE = /^(08|53|57P)/;
const CONNECT_TIMEOUT_MS = 5_000;
const QUERY_TIMEOUT_MS = 15_000;
const MAX_UPDATE_ATTEMPTS = 20;

export class PostgresRecordStore implements RecordStore {
  readonly #pool: Pool;

  private constructor(pool: Pool) {
    this.#pool = pool;
  }

  /** Loads the driver, connects, and creates or migrates the tables. */
  static async open(options: PostgresStoreOptions): Promise<PostgresRecordStore> {
    let pg: { Pool: new (config: Record<string, unknown>) => Pool };
    try {
      // A specifier TypeScript does not resolve: the driver's types stay out of our declarations.
      const name = "pg";
      const loaded = (await import(name)) as { default?: typeof pg } & typeof pg;
      pg = loaded.default ?? loaded;
    } catch {
      throw new StoreConfigError("HUBMCP_STORE_DRIVER_MISSING", "install pg to use a postgres store");
    }
    const pool = new pg.Pool({
      connectionString: withPassword(options.url, options.password),
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      // A server that accepted the connection and then hangs is as unreachable as one that refused it.
      query_timeout: QUERY_TIMEOUT_MS,
      idleTimeoutMillis: 30_000,
    });
    // An idle connection dropped by the server (a restart) is reported here; without a
    // listener it would crash the process. The next query opens a fresh one.
    pool.on("error", () => undefined);
    const store = new PostgresRecordStore(pool);
    try {
      await store.#transaction((client) => migrate(client));
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
    }
    return store;
  }

  async get<T>(collection: string, id: string): Promise<T | undefined> {
    const { rows } = await this.#query("SELECT value FROM hubmcp_records WHERE collection = $1 AND id = $2", [checkCollection(collection), checkId(id)]);
    return rows.length === 0 ? undefined : (JSON.parse(rows[0]!.value as string) as T);
  }

  async put(collection: string, id: string, value: unknown): Promise<void> {
    await this.#query(
      "INSERT INTO hubmcp_records (collection, id, value) VALUES ($1, $2, $3) ON CONFLICT (collection, id) DO UPDATE SET value = EXCLUDED.value",
      [checkCollection(collection), checkId(id), JSON.stringify(value)],
    );
  }

  async create(collection: string, id: string, value: unknown): Promise<boolean> {
    const { rowCount } = await this.#query("INSERT INTO hubmcp_records (collection, id, value) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [
      checkCollection(collection),
      checkId(id),
      JSON.stringify(value),
    ]);
    return rowCount === 1;
  }

  async delete(collection: string, id: string): Promise<void> {
    await this.#query("DELETE FROM hubmcp_records WHERE collection = $1 AND id = $2", [checkCollection(collection), checkId(id)]);
  }

  async list<T>(collection: string): Promise<Array<{ id: string; value: T }>> {
    const { rows } = await this.#query("SELECT id, value FROM hubmcp_records WHERE collection = $1", [checkCollection(collection)]);
    return rows.map((row) => ({ id: row.id as string, value: JSON.parse(row.value as string) as T }));
  }

  async update<T>(collection: string, id: string, change: (current: T | undefined) => T | undefined): Promise<T | undefined> {
    const key = [checkCollection(collection), checkId(id)];
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      // The row lock holds every other writer of this record until we commit. An absent
      // record has no row to lock: two first writers race on the insert, and the loser
      // starts over and sees the winner's value.
      const outcome = await this.#transaction(async (client) => {
        const { rows } = await client.query("SELECT value FROM hubmcp_records WHERE collection = $1 AND id = $2 FOR UPDATE", key);
        const current = rows.length === 0 ? undefined : (JSON.parse(rows[0]!.value as string) as T);
        const next = change(current);
        if (next === undefined) return { done: true, value: current };
        const text = JSON.stringify(next);
        if (rows.length > 0) {
          await client.query("UPDATE hubmcp_records SET value = $3 WHERE collection = $1 AND id = $2", [...key, text]);
        } else {
          const { rowCount } = await client.query("INSERT INTO hubmcp_records (collection, id, value) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [
            ...key,
            text,
          ]);
          if (rowCount !== 1) return { done: false, value: undefined };
        }
        return { done: true, value: JSON.parse(text) as T };
      });
      if (outcome.done) return outcome.value;
    }
    throw new Error("record update kept conflicting");
  }

  async secret(name: string): Promise<Buffer> {
    await this.create("secrets", name, { key: randomBytes(32).toString("base64") });
    const record = await this.get<{ key: string }>("secrets", name);
    if (!record) throw new Error("secret vanished after creation");
    return Buffer.from(record.key, "base64");
  }

  /** Closes every connection; the store is unusable afterwards. */
  close(): Promise<void> {
    return this.#pool.end();
  }

  async #query(text: string, values: unknown[]): Promise<{ rows: Array<Record<string, unknown>>; rowCount: number | null }> {
    try {
      return await this.#pool.query(text, values);
    } catch (err) {
      throw translate(err);
    }
  }

  async #transaction<R>(work: (client: SqlClient) => Promise<R>): Promise<R> {
    let client;
    try {
      client = await this.#pool.connect();
    } catch (err) {
      throw translate(err);
    }
    let broken = false;
    try {
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => (broken = true));
      throw translate(err);
    } finally {
      client.release(broken);
    }
  }
}

/** pg lets the URL's (absent) password override a separate one, so it goes into the URL. */
function withPassword(url: string, password: string | undefined): string {
  if (password === undefined) return url;
  const parsed = new URL(url);
  parsed.password = encodeURIComponent(password);
  return parsed.href;
}

function checkId(id: string): string {
  encodeId(id);
  return id;
}

function isUnavailable(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return UNAVAILABLE_STATE.test(code);
  // No SQLSTATE: the socket failed (refused, reset, timed out) or pg gave up on it.
  if (typeof code === "string") return /^E[A-Z]+$/.test(code);
  return /connection|terminated|timeout/i.test((err as Error).message ?? "");
}

function translate(err: unknown): unknown {
  return isUnavailable(err) ? new StoreUnavailableError() : err;
}
