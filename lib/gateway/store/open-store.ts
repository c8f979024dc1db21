// Which RecordStore a hub_gateway command uses, decided in one place for the server and
// every operator command: `--store postgres://…` (or `"store"` in gateway.json) for a
// database shared by replicas on any machine, else the file store in `--data-dir`. The
// password comes from HUBMCP_STORE_PASSWORD (or pg's own PGPASSWORD), so it stays out of
// `ps` and of the config file.
import { resolve } from "node:path";
import type { RecordStore } from "../contracts/interfaces.ts";
import { FileRecordStore } from "./file-record-store.ts";
import { PostgresRecordStore } from "./postgres-record-store.ts";
import { StoreConfigError } from "../contracts/store-errors.ts";

export interface StoreChoice {
  /** `--store`: a postgres:// URL. */
  store?: string;
  /** `--data-dir`. */
  dataDir?: string;
  /** `"store"` from gateway.json, when a config was read. */
  configStore?: string;
}

export interface OpenedStore {
  readonly store: RecordStore;
  readonly kind: "file" | "postgres";
  /** Releases connections; nothing to do for the file store. */
  close(): Promise<void>;
}

/** A postgres:// URL as a store location, checked without echoing it (it may hold a password). */
export function checkStoreUrl(value: unknown, key: string): string {
  let url: URL | undefined;
  try {
    url = typeof value === "string" ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "postgres:" && url.protocol !== "postgresql:") || !url.hostname) {
    throw new StoreConfigError("HUBMCP_BAD_STORE", `${key} must be a postgres://user@host:port/database URL`);
  }
  return value as string;
}

export async function openStore(choice: StoreChoice, env: NodeJS.ProcessEnv): Promise<OpenedStore> {
  if (choice.store !== undefined && choice.dataDir !== undefined) throw new StoreConfigError("HUBMCP_BAD_STORE", "use --store or --data-dir, not both");
  const url = choice.store !== undefined ? checkStoreUrl(choice.store, "--store") : choice.dataDir === undefined ? choice.configStore : undefined;
  if (url === undefined) {
    const dir = resolve(choice.dataDir ?? env.HUB_GATEWAY_DATA_DIR ?? "hub-data");
    return { store: await FileRecordStore.open(dir), kind: "file", close: async () => {} };
  }
  const store = await PostgresRecordStore.open({ url, password: env.HUBMCP_STORE_PASSWORD || undefined });
  return { store, kind: "postgres", close: () => store.close() };
}
