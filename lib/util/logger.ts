// Where the library reports what it does. It never writes to the console itself: the
// caller injects a logger (start_mcp's writes one line per entry to stderr), silent by default.

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** Sends every entry to whichever logger `current()` names at the time. */
export function forwardingLogger(current: () => Logger): Logger {
  return {
    debug: (message, fields) => current().debug(message, fields),
    info: (message, fields) => current().info(message, fields),
    warn: (message, fields) => current().warn(message, fields),
    error: (message, fields) => current().error(message, fields),
  };
}

/**
 * start_mcp hands the app's server its stderr logger through this symbol-keyed method; a
 * server built with its own `logger` keeps it. A symbol, like the brand, since the app and
 * the launcher may load different copies of the library.
 */
export const DEFAULT_LOGGER = Symbol.for("hubmcp.defaultLogger");

/** A failure as log fields: its message, and its stack apart (printed only when debugging). */
export function failureFields(err: unknown): { error: string; stack?: string } {
  if (err instanceof Error) return err.stack ? { error: err.message || err.name, stack: err.stack } : { error: err.message || err.name };
  return { error: typeof err === "string" ? err : "a non-Error value was thrown" };
}

export type HandlerKind = "tool" | "resource" | "prompt" | "completion";

/**
 * A user's handler threw: one entry naming the handler and the message (the stack apart),
 * never the arguments it was called with. Every kind of handler reports through here, so the
 * operator sees them all alike.
 */
export function logHandlerFailure(logger: Logger, kind: HandlerKind, handler: string, err: unknown): void {
  logger.error(`${kind} handler failed`, { handler, ...failureFields(err) });
}
