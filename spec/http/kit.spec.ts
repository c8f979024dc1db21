// One HTTP kit (issue 22.2): body reading, JSON answers, CORS, listen/close and SSE reading
// and writing each exist once, under lib/http, so copies with their own limits, headers or
// parsing cannot creep back. The patterns are in ./kit-scan.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { ALLOWED, CONCERNS, copies, type Concern } from "./kit-scan.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function sources(dir: string): [string, string][] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(ts|js)$/.test(e.name) && !e.name.endsWith(".d.ts")
      ? [[relative(ROOT, path).split("\\").join("/"), readFileSync(path, "utf8")] as [string, string]]
      : [];
  });
}

test("no file outside lib/http keeps its own copy of an HTTP kit concern", () => {
  const found = copies(new Map(sources(join(ROOT, "lib"))));
  for (const [concern, files] of Object.entries(found)) assert.deepEqual(files, [], `${concern}: use the one in lib/http`);
  for (const paths of Object.values(ALLOWED)) for (const path of paths) assert.ok(readFileSync(join(ROOT, path)), `${path} still exists`);
});

/** Copies the tree had before the kit (abridged from the files named), one per concern: each must be caught. */
const FORMER_COPIES: Record<Concern, string> = {
  "body reader": `import type { IncomingMessage } from "node:http";
    export function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
      return new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        req.on("data", (chunk: Buffer) => { chunks.push(chunk); });
        req.once("end", () => resolve(Buffer.concat(chunks)));
      });
    }`, // lib/gateway/request-body.ts
  "JSON writer": `function sendJson(res: ServerResponse, status: number, error: string): void {
      const body = JSON.stringify({ error });
      // CORS headers so a browser host can read why the upstream failed.
      res.writeHead(status, { ...CORS_HEADERS, "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    }`, // lib/proxy/reverse-proxy.ts
  CORS: `res.setHeader("Access-Control-Allow-Origin", "*");`, // lib/gateway/oauth/http-io.ts
  "listen/close": `import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
    const timer = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);`, // lib/gateway/server.ts
  "SSE parser": `const m = /event: *endpoint\\r?\\ndata: *([^\\r\\n]*)/.exec(text);`, // lib/gateway/relay/mcp-sessions.ts
  "SSE writer": `res.write(": stream open\\n\\n");`, // lib/gateway/relay/forward.ts
};

test("the scan catches the copies the tree used to have", () => {
  for (const [concern, source] of Object.entries(FORMER_COPIES) as [Concern, string][]) {
    assert.ok(CONCERNS[concern](source), `${concern} is recognised`);
    assert.deepEqual(copies(new Map([["lib/gateway/former.ts", source]]))[concern], ["lib/gateway/former.ts"]);
    assert.deepEqual(copies(new Map([["lib/http/kit.ts", source]]))[concern], [], "lib/http is where each concern lives");
  }
});
