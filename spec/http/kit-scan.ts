// What counts as a copy of an HTTP kit concern in a source file outside lib/http: the
// patterns each concern's code cannot do without. Used by kit.spec.ts on the tree, and
// runnable on any older tree to count the copies it had.

export type Concern = "body reader" | "JSON writer" | "CORS" | "listen/close" | "SSE parser" | "SSE writer";

const HTTP_MODULE = /from\s+["']node:https?["']/;

/** Each concern: does this source (of a file outside lib/http) hold its own copy? */
export const CONCERNS: Record<Concern, (source: string) => boolean> = {
  // Collecting a message's chunks into one body.
  "body reader": (s) =>
    HTTP_MODULE.test(s) && /\.on\(\s*["']data["']|for await \(const chunk of/.test(s) && /Buffer\.concat\(|chunks\.push\(|\+= decoder\.write\(/.test(s),
  // Serialising a value and writing it as a whole answer.
  "JSON writer": (s) => /JSON\.stringify\([^\n]*\)[\s\S]{0,400}?\.writeHead\(\s*\w+,\s*\{[^}]*application\/json/.test(s),
  CORS: (s) => /access-control-allow-(?:origin|headers|methods)|access-control-max-age/i.test(s),
  // Binding an HTTP server, or cutting its connections on close.
  "listen/close": (s) => /import\s*\{[^}]*\bcreateServer\b[^}]*\}\s*from\s*["']node:http["']/.test(s) || /closeAllConnections\(/.test(s),
  // Splitting an event stream into fields.
  "SSE parser": (s) => /startsWith\(\s*["'](?:data|event|id):|\^(?:data|event|id):|(?:data|event): \*|field === ["']data["']/.test(s),
  // Framing events or comments by hand.
  "SSE writer": (s) => /["'`](?:event|data|id): [^"'`]*\\n|["'`]: [^"'`]*\\n\\n["'`]/.test(s),
};

/**
 * Files that may keep their own copy, and why. The browser console's client code runs in the
 * page (it may keep its own SSE parser, tested against the same cases); the console's routes
 * sit below lib/http in the package graph.
 */
export const ALLOWED: Partial<Record<Concern, readonly string[]>> = {
  "SSE parser": ["lib/console/client/sse.js"],
  "JSON writer": ["lib/console/routes.ts"],
};

export function copies(files: ReadonlyMap<string, string>): Record<Concern, string[]> {
  const found = Object.fromEntries(Object.keys(CONCERNS).map((c) => [c, [] as string[]])) as unknown as Record<Concern, string[]>;
  for (const [path, source] of files) {
    if (path.startsWith("lib/http/")) continue;
    for (const [concern, holds] of Object.entries(CONCERNS) as [Concern, (s: string) => boolean][]) {
      if (holds(source) && !(ALLOWED[concern] ?? []).includes(path)) found[concern].push(path);
    }
  }
  return found;
}
