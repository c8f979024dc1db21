// start_mcp's ready line: the one machine-readable line `start_mcp --ready-line` prints on
// stdout once it listens, so whoever started it (hub_gateway, which reads a child's stdout
// or a Slurm job's output file) learns where it is instead of guessing a port:
//
//   {"hubmcp":"ready","url":"http://127.0.0.1:41234/","prefix":"/weber/…"}
//
// `url` is where the server listens (its root, with a trailing slash; `--port 0` binds an
// ephemeral port and this names it), `prefix` the mount path it also answers under and
// strips ("" for none). Other keys may be added; readers ignore what they do not know.

export interface ReadyInfo {
  url: string;
  prefix: string;
}

/** No ready line is longer: a reader stops looking at a line past this. */
export const MAX_READY_LINE_CHARS = 4096;

const MARK = '{"hubmcp":"ready"';

export function formatReadyLine(info: ReadyInfo): string {
  return JSON.stringify({ hubmcp: "ready", url: info.url, prefix: info.prefix });
}

/** A mount path: "" or `/a/b` (no trailing slash, no query, fragment, space or dot segment). */
export function isPathPrefix(prefix: string): boolean {
  return prefix === "" || (/^(\/[A-Za-z0-9._~%!$&'()*+,;=:@-]+)+$/.test(prefix) && !/\/\.\.?(\/|$)/.test(prefix));
}

/** The ready line's facts, or null when `line` is not a well-formed ready line. */
export function parseReadyLine(line: string): ReadyInfo | null {
  const text = line.trim();
  if (text.length > MAX_READY_LINE_CHARS || !text.startsWith(MARK)) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const { url, prefix } = value as { url?: unknown; prefix?: unknown };
  if (typeof url !== "string" || typeof prefix !== "string" || !isPathPrefix(prefix) || !URL.canParse(url)) return null;
  const parsed = new URL(url);
  if (
    parsed.protocol !== "http:" ||
    parsed.pathname !== "/" ||
    parsed.search !== "" ||
    parsed.hash !== "" ||
    parsed.username !== "" ||
    parsed.password !== "" ||
    parsed.port === ""
  )
    return null;
  return { url: parsed.href, prefix };
}
