// Minting an upstream session from whatever a tool server's `GET /mcp` stream holds: the
// endpoint event found among comments, other events, ids, retry and CRLF; a stream with no
// usable endpoint refused with 502 as soon as it is clear (too long, too large, ended),
// never after the 15 s wait. A tiny in-spec tool server (a `url` revision) writes the bytes;
// the real start_mcp is covered in section-c.spec.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { json, startHarness } from "./helpers.ts";

const STREAMS: Record<string, string[]> = {
  scattered: ["\uFEFF: hello\r\n\r\nevent: open\r\ndata: {}\r\n\r\nevent: endpoint\r\nretry: 10\r", "\nid: 4\r\ndata: /weber/x/mcp?session_id=up-scattered\r\n\r\n"],
  chatty: [": padding\n".repeat(8000)],
  huge: [`data: ${"x".repeat(100_000)}`],
  ended: ["event: endpoint\ndata: /mcp\n\n"],
  "no-status": [],
};

async function upstream(t: test.TestContext): Promise<string> {
  const server = createServer((req, res) => {
    const mode = decodeURIComponent((req.url ?? "").split("/")[1] ?? "");
    if (mode === "no-status") return void res.writeHead(500).end();
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const chunk of STREAMS[mode] ?? []) res.write(chunk);
    if (mode === "ended") res.end();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  t.after(() => {
    server.closeAllConnections();
    return new Promise((done) => server.close(done));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test("the endpoint event is found however the stream spells it; no usable one is a prompt 502", { timeout: 30_000 }, async (t) => {
  const origin = await upstream(t);
  const tools = Object.fromEntries(Object.keys(STREAMS).map((mode) => [mode, { revisions: { default: { url: `${origin}/${mode}/` } } }]));
  const h = await startHarness(t, { tools });
  const bootstrap = (tool: string): Promise<Response> => fetch(`${h.base}/api/mcp/${tool}`, { headers: { authorization: `Bearer ${h.tokens.alice}` } });
  const ok = await bootstrap("scattered");
  assert.equal(ok.status, 200);
  assert.match((await json(ok)).session, /^g1\./);
  for (const tool of ["chatty", "huge", "ended", "no-status"]) {
    const res = await bootstrap(tool);
    assert.equal(res.status, 502, tool);
    assert.equal((await json(res)).error, "no_upstream_session", tool);
  }
});
