// start_mcp's logger for the app's server: each entry one line on stderr, `start_mcp: <what>:
// <which>: <message>`, so an operator sees every failing handler; the stack follows, indented,
// only under --debug. Debug entries (async runs starting and ending) also only under --debug.
import type { Logger } from "../util/logger.ts";

/** Longest text of one field, so one odd message cannot flood the log. */
const MAX_FIELD = 1000;

/** Line breaks inside a value would split the entry: they become spaces. */
function oneLine(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  const flat = text.replace(/\s*[\r\n]+\s*/g, " ");
  return flat.length > MAX_FIELD ? `${flat.slice(0, MAX_FIELD)}…` : flat;
}

export function formatEntry(name: string, message: string, fields: Record<string, unknown> = {}): string {
  const { handler, error, stack: _stack, ...rest } = fields;
  let line = `${name}: ${message}`;
  if (handler !== undefined) line += `: ${oneLine(handler)}`;
  if (error !== undefined) line += `: ${oneLine(error)}`;
  const extra = Object.entries(rest).filter(([, v]) => v !== undefined);
  if (extra.length > 0) line += ` (${extra.map(([k, v]) => `${k}=${oneLine(v)}`).join(", ")})`;
  return line;
}

export function stderrLogger(write: (line: string) => void, debug: boolean, name = "start_mcp"): Logger {
  const emit = (message: string, fields?: Record<string, unknown>): void => {
    write(formatEntry(name, message, fields));
    const stack = fields?.stack;
    if (debug && typeof stack === "string") {
      // The first stack line repeats the message already printed.
      for (const frame of stack.split("\n").slice(1)) write(`    ${frame.trim()}`);
    }
  };
  return {
    debug: (message, fields) => void (debug && emit(message, fields)),
    info: emit,
    warn: emit,
    error: emit,
  };
}
