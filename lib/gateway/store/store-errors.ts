// Failures of a shared store, with stable codes. HUBMCP_STORE_UNAVAILABLE is the one a request
// can wait out (the database is down or restarting): the gateway answers it with 503 and
// Retry-After, never 500. The others are an operator's to fix and stop a command or a start.

/** The store cannot be reached now; the same request may succeed later. */
export class StoreUnavailableError extends Error {
  readonly code = "HUBMCP_STORE_UNAVAILABLE";
  constructor() {
    super("the record store is unreachable");
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

/** Seconds a client is told to wait when the store is unreachable. */
export const STORE_RETRY_AFTER_SECONDS = 5;

export function isStoreUnavailable(err: unknown): err is StoreUnavailableError {
  return err instanceof StoreUnavailableError;
}
