// The one rule for the session a request names, read from real requests on a loopback server
// (repeated headers as Node joins them).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { namedSessionId } from "../../lib/http/session-ref.ts";

/** Sends `head` (request line and headers) raw and answers what namedSessionId read from it. */
async function named(t: { after(fn: () => unknown): void }, head: string, pathSession?: string): Promise<string | null> {
  let seen: string | null = "unset";
  const server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    seen = namedSessionId(req, url.searchParams, pathSession);
    res.end();
  });
  t.after(() => server.close());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
  socket.write(`${head}\r\nHost: x\r\nConnection: close\r\n\r\n`);
  socket.resume();
  await new Promise((resolve) => socket.once("close", resolve));
  return seen;
}

test("the header names the session; an empty header falls through to the query", async (t) => {
  assert.equal(await named(t, "GET /mcp?session_id=q HTTP/1.1\r\nMcp-Session-Id: h"), "h");
  assert.equal(await named(t, "GET /mcp?session_id=q HTTP/1.1\r\nMcp-Session-Id: "), "q");
  assert.equal(await named(t, "GET /mcp?sessionId=q2 HTTP/1.1"), "q2");
});

test("empty query values and no value name nothing; the path's session comes last", async (t) => {
  assert.equal(await named(t, "GET /mcp?session_id=&sessionId= HTTP/1.1"), null);
  assert.equal(await named(t, "GET /mcp?session_id= HTTP/1.1", "p"), "p");
  assert.equal(await named(t, "GET /mcp HTTP/1.1"), null);
});

test("a repeated header is named as Node joins it, which no issued id matches", async (t) => {
  const id = await named(t, "GET /mcp HTTP/1.1\r\nMcp-Session-Id: a\r\nMcp-Session-Id: b");
  assert.equal(id, "a, b");
  assert.doesNotMatch(id ?? "", /^[\x21-\x7e]+$/);
});
