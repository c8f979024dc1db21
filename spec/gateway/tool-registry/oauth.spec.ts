// `hub_gateway` as served from the command line hands its OAuth server the tools it serves,
// registered ones included: a person signs in for a registered tool's own URL and calls it
// with the token, as for a tool of gateway.json's.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { run } from "../../../cli/hub_gateway.ts";
import { recordingIo } from "../../helpers/cli-io.ts";
import { tempDir } from "../../helpers/launcher-fixtures.ts";
import { obtainTokens } from "../oauth/harness.ts";
import { startLabelledServer } from "./labelled-server.ts";

test("an OAuth token for a registered tool's own URL", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t, "hubmcp-registry-oauth-");
  const data = ["--data-dir", join(dir, "data")];
  const config = join(dir, "gateway.json");
  writeFileSync(config, JSON.stringify({ tools: {}, limits: { lookupCacheSeconds: 0.2 } }));
  const upstream = await startLabelledServer("one");
  t.after(() => upstream.close());
  assert.equal(await run(["user", "add", "ada", "--password-stdin", ...data], {}, recordingIo("correct horse\n")), 0);
  assert.equal(await run(["tool", "add", "calc", "--url", upstream.url, ...data], {}, recordingIo()), 0);

  let stop!: (signal: string) => void;
  let ready!: (url: string) => void;
  const listening = new Promise<string>((done) => (ready = done));
  const io = { ...recordingIo(), stopRequested: new Promise<string>((done) => (stop = done)) };
  io.out = (line: string) => ready(/ready at (\S+)/.exec(line)?.[1] ?? "");
  const served = run(["--config", config, "--port", "0", ...data], {}, io);
  t.after(() => {
    stop("SIGTERM");
    return served;
  });
  const base = (await listening).replace(/\/$/, "");
  const resource = `${base}/api/mcp/calc/mcp`;
  const { tokens } = await obtainTokens(base, resource);
  const answer = await fetch(resource, {
    method: "POST",
    headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    }),
  });
  assert.equal(answer.status, 200);
  await answer.arrayBuffer();
});
