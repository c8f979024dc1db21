// Failures of a shared store, with stable codes. HUBMCP_STORE_UNAVAILABLE (the database is
// down or restarting) and HUBMCP_STORE_FULL (the data dir's disk is full) are the ones a
// request can wait out: the gateway answers them with 503 and Retry-After, never 500. The
// others are an operator's to fix and stop a command or a start.

/** The store cannot be reached now; the same request may succeed later. */
export class StoreUnavailableError extends Error {
  readonly code = "HUBMCP_STORE_UNAVAILABLE";
  constructor() {
    super("the record store is unreachable");
  }
}

/** The data dir cannot take a write: its disk is full, over quota or read-only. Reads go on. */
export class StoreFullError extends Error {
  readonly code = "HUBMCP_STORE_FULL";
  constructor() {
    super("the data dir cannot be written: its disk is full, over quota or read-only");
  }
}

/** A store that cannot be used as configured: no driver, a bad URL, a schema too new. */
export class StoreConfigError extends Error {
  constructor(
    readonly code: "HUBMCP_STORE_DRIVER_MISSING" | "HUBMCP_BAD_STORE" | "HUBMCP_STORE_SCHEMA_TOO_NEW",
    message: string,
  ) {
    super(message);
  }
}

/** Seconds a client is told to wait when the store is unreachable or full. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/** Whether the store failed in a way the same request may get past later: answered 503, not 500. */
export function isStoreUnavailable(err: unknown): err is StoreUnavailableError | StoreFullError {
  return err instanceof StoreUnavailableError || err instanceof StoreFullError;
}

const FULL = new Set(["ENOSPC", "EDQUOT", "EROFS"]);

/** A failed filesystem write as the store reports it: out of space, quota or writable disk is a StoreFullError. */
export function storeWriteFailure(err: unknown): unknown {
  const code = typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === "string" && FULL.has(code) ? new StoreFullError() : err;
}

/**
 * A failed filesystem read as the store reports it: a record that is absent is the caller's to
 * handle (ENOENT), but any other system error (EIO, EMFILE, ENFILE, …) says nothing about the
 * record, so it is a StoreUnavailableError (503, try again) and never read as "no such token".
 */
export function storeReadFailure(err: unknown): unknown {
  const code = typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === "string" && code !== "ENOENT" && /^E[A-Z]+$/.test(code) ? new StoreUnavailableError() : err;
}
