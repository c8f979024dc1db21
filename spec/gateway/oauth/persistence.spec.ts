import assert from "node:assert/strict";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";
import { OAuthServer } from "../../../lib/gateway/oauth/server.ts";
import { TestAccounts, listen, obtainTokens, token, type Tokens } from "./harness.ts";

test("two servers on one data dir see each other's clients, grants and revocations; nothing secret is stored in clear", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "oauth-data-"));
  // Both processes answer on the same public URL, as behind one load balancer.
  const servers: OAuthServer[] = [];
  // A grant's use is noted in the background: the folder goes once those writes are done.
  t.after(async () => {
    await Promise.all(servers.map((s) => s.settled()));
    await rm(dir, { recursive: true, force: true });
  });
  const accounts = new TestAccounts();
  let counter = 0;
  const http = createServer((req, res) => {
    // Alternate between the two instances request by request.
    const as = servers[counter++ % 2]!;
    void as.handle(req, res).then((ok) => ok || res.writeHead(404).end());
  });
  const publicUrl = await listen(http, t);
  servers.push(new OAuthServer({ publicUrl, store: new FileRecordStore(dir), accounts }));
  servers.push(new OAuthServer({ publicUrl, store: new FileRecordStore(dir), accounts }));
  const { clientId, tokens } = await obtainTokens(publicUrl);
  assert.ok(await servers[0]!.verifier.verify(tokens.access_token, publicUrl));
  assert.ok(await servers[1]!.verifier.verify(tokens.access_token, publicUrl));

  // A third instance, started after the others ("restart"), still knows everything.
  const restarted = new OAuthServer({ publicUrl, store: new FileRecordStore(dir), accounts });
  servers[0] = restarted;
  servers[1] = restarted;
  assert.ok(await restarted.verifier.verify(tokens.access_token, publicUrl));
  const refreshed = await token(publicUrl, { grant_type: "refresh_token", client_id: clientId, refresh_token: tokens.refresh_token });
  assert.equal(refreshed.status, 200);
  const next = (await refreshed.json()) as Tokens;

  const everything: string[] = [];
  for (const collection of await readdir(dir)) {
    for (const file of await readdir(join(dir, collection))) everything.push(await readFile(join(dir, collection, file), "utf8"));
  }
  const stored = everything.join("\n");
  for (const secret of [tokens.access_token, tokens.refresh_token, next.refresh_token, next.access_token, "correct horse"]) {
    assert.equal(stored.includes(secret), false);
  }
});

test("another process on the same data dir accepts the tokens and sees the revocation", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "oauth-data-"));
  let as: OAuthServer | undefined;
  t.after(async () => {
    await as?.settled();
    await rm(dir, { recursive: true, force: true });
  });
  const accounts = new TestAccounts();
  const publicUrl = await listen(
    createServer((req, res) => void as!.handle(req, res).then((ok) => ok || res.writeHead(404).end())),
    t,
  );
  as = new OAuthServer({ publicUrl, store: new FileRecordStore(dir), accounts });
  const { clientId, tokens } = await obtainTokens(publicUrl);
  const script = fileURLToPath(new URL("verify-in-child.ts", import.meta.url));
  const check = async (): Promise<string> =>
    (
      await promisify(execFile)(process.execPath, ["--import", "tsx", script, dir, publicUrl], {
        env: { ...process.env, ACCESS_TOKEN: tokens.access_token },
        timeout: 30_000,
      })
    ).stdout.trim();
  assert.equal(await check(), "ada");
  const revoke = await fetch(`${publicUrl}/developer/oauth/revoke`, {
    method: "POST",
    body: new URLSearchParams({ client_id: clientId, token: tokens.refresh_token }),
  });
  await revoke.arrayBuffer();
  assert.equal(await check(), "refused");
});
