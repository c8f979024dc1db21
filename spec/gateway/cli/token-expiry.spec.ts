// `hub_gateway token create NAME --expires 30d --name LABEL`: the lifetime and name are kept,
// listed, and once the lifetime has passed the gateway refuses the token on a tool's route
// and on /mcp with exactly the answer a revoked token gets. Tokens without one keep working.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { run } from "../../../cli/hub_gateway.ts";
import { parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import { startGateway } from "../../../lib/gateway/server.ts";
import { FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";
import { recordingIo as io } from "../../helpers/cli-io.ts";
import { tempDir } from "../../helpers/launcher-fixtures.ts";
import { fake, forThisCheckout, post, ROOT, stateRootFor } from "../helpers.ts";

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "spec", version: "1" } },
});

async function create(dataDir: string, ...extra: string[]): Promise<{ id: string; token: string; note: string }> {
  const out = io();
  assert.equal(await run(["token", "create", "ada", ...extra, "--data-dir", dataDir], {}, out), 0, out.errors.join("\n"));
  return { token: out.lines[0]!, id: /token (\S+) created/.exec(out.errors[0]!)![1]!, note: out.errors[0]! };
}

test("token create --expires and --name: kept, listed, and bad values are usage errors", async (t) => {
  const dataDir = join(tempDir(t), "data");
  assert.equal(await run(["user", "add", "ada", "--password-stdin", "--data-dir", dataDir], {}, io("pw")), 0);
  const before = Date.now();
  const made = await create(dataDir, "--expires", "30d", "--name", "laptop");
  const until = Date.parse(/valid until (\S+);/.exec(made.note)![1]!);
  assert.ok(until >= before + 30 * 86_400_000 && until <= Date.now() + 30 * 86_400_000);
  const plain = await create(dataDir);
  assert.doesNotMatch(plain.note, /valid until/);
  const listed = io();
  assert.equal(await run(["token", "list", "--data-dir", dataDir], {}, listed), 0);
  const rows = new Map(listed.lines.map((l) => [l.split("  ")[0]!, l.split("  ")]));
  assert.deepEqual(rows.get(made.id)!.slice(3), [new Date(until).toISOString(), "-", "laptop"]);
  assert.deepEqual(rows.get(plain.id)!.slice(3), ["never", "-", "-"]);
  for (const [args, pattern] of [
    [["--expires", "30"], /--expires must be a lifetime such as 12h, 30d or 8w/],
    [["--expires", "0d"], /--expires must be/],
    [["--expires", "3651d"], /--expires must be/],
    [["--name", " "], /--name must be 1-64 printable characters/],
    [["--name", "a\u0007b"], /--name must be/],
  ] as const) {
    const out = io();
    assert.equal(await run(["token", "create", "ada", ...args, "--data-dir", dataDir], {}, out), 2, args.join(" "));
    assert.match(out.errors[0]!, pattern);
  }
  const misplaced = io();
  assert.equal(await run(["token", "list", "--expires", "1d", "--data-dir", dataDir], {}, misplaced), 2);
  assert.match(misplaced.errors[0]!, /--expires and --name go with token create/);
  for (const [a, b] of [
    ["12h", 12 * 3600_000],
    ["8w", 56 * 86_400_000],
  ] as const) {
    const start = Date.now();
    const m = await create(dataDir, "--expires", a);
    const at = Date.parse(/valid until (\S+);/.exec(m.note)![1]!);
    assert.ok(at >= start + b && at <= Date.now() + b, a);
  }
});

test("an expired token is refused on a tool's route and on /mcp exactly as a revoked one; one without expiry works", { timeout: 60_000 }, async (t) => {
  const dataDir = join(tempDir(t), "data");
  assert.equal(await run(["user", "add", "ada", "--password-stdin", "--data-dir", dataDir], {}, io("pw")), 0);
  const expiring = await create(dataDir, "--expires", "1h", "--name", "soon");
  const forever = await create(dataDir);
  const revoked = await create(dataDir);
  assert.equal(await run(["token", "revoke", revoked.id, "--data-dir", dataDir], {}, io()), 0);
  const store = new FileRecordStore(dataDir);
  await stateRootFor(t, store);
  const config = parseGatewayConfig(forThisCheckout(t, { tools: { demo: { revisions: { default: fake() } } }, limits: { lookupCacheSeconds: 0 } }), ROOT);
  const gw = await startGateway({ config, store, childEnv: { ...process.env, NODE_V8_COVERAGE: "" } });
  t.after(() => gw.close());
  const base = gw.url.slice(0, -1);
  const answers = async (token: string): Promise<Array<{ status: number; auth: string | null; body: string }>> => {
    const out = [];
    for (const url of [`${base}/api/mcp/demo/mcp`, `${base}/mcp`]) {
      const res = await post(url, token, INIT);
      out.push({ status: res.status, auth: res.headers.get("www-authenticate"), body: await res.text() });
    }
    return out;
  };
  assert.deepEqual(
    (await answers(expiring.token)).map((a) => a.status),
    [200, 200],
    "within its hour",
  );
  // The hour passes: the data dir's record says so, as it would an hour later.
  const record = (await store.get<Record<string, unknown>>("api-tokens", expiring.id))!;
  await store.put("api-tokens", expiring.id, { ...record, expiresAt: new Date(Date.now() - 1000).toISOString() });
  // lookupCacheSeconds 0: the gateway reads the record on every request, as it does once its cache lets go.
  const expired = await answers(expiring.token);
  assert.deepEqual(
    expired.map((a) => a.status),
    [401, 401],
  );
  assert.deepEqual(expired, await answers(revoked.token), "the same answer, byte for byte, as a revoked token");
  assert.deepEqual(
    (await answers(forever.token)).map((a) => a.status),
    [200, 200],
    "no expiry: still good",
  );
});

test("with --config naming a file audit trail, token create and revoke from the CLI are lines of it (never the token)", async (t) => {
  const dir = tempDir(t);
  const dataDir = join(dir, "data");
  const trail = join(dir, "trail");
  mkdirSync(trail, { mode: 0o700 });
  const config = join(dir, "gateway.json");
  writeFileSync(config, JSON.stringify({ tools: {}, audit: { dir: trail } }));
  assert.equal(await run(["user", "add", "ada", "--password-stdin", "--data-dir", dataDir], {}, io("pw")), 0);
  const made = await create(dataDir, "--expires", "1d", "--name", "laptop", "--config", config);
  const revoked = io();
  assert.equal(await run(["token", "revoke", made.id, "--data-dir", dataDir, "--config", config], {}, revoked), 0, revoked.errors.join("\n"));
  const missing = io();
  assert.equal(await run(["token", "revoke", "nosuchid", "--data-dir", dataDir, "--config", config], {}, missing), 1);
  const raw = readFileSync(join(trail, "audit.jsonl"), "utf8");
  assert.ok(!raw.includes(made.token) && !raw.includes(made.token.split("_").pop()!.slice(-12)), "the token is never written");
  const lines = raw
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, string>);
  assert.deepEqual(
    lines.map((l) => [l.event, l.person, l.by?.startsWith("cli:uid="), l.tokenId, l.name, typeof l.expiresAt]),
    [
      ["token.create", "ada", true, made.id, "laptop", "string"],
      ["token.revoke", "ada", true, made.id, "laptop", "string"],
    ],
  );
});
