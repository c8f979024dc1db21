// Two gateway replicas on one store, with tools registered by `hub_gateway tool …` while
// official SDK clients hold sessions on a per-tool route and at `/mcp`: the scenario the
// file-store and PostgreSQL specs both run.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { run } from "../../../cli/hub_gateway.ts";
import { StoreAccountDirectory } from "../../../lib/gateway/identity/accounts.ts";
import { ApiTokens } from "../../../lib/gateway/identity/api-tokens.ts";
import { parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import type { RecordStore } from "../../../lib/gateway/contracts/interfaces.ts";
import { startGateway, type RunningGateway } from "../../../lib/gateway/server.ts";
import { recordingIo } from "../../helpers/cli-io.ts";
import { tempDir } from "../../helpers/launcher-fixtures.ts";
import { startLabelledServer } from "./labelled-server.ts";

export interface Replica {
  gw: RunningGateway;
  /** Resolves at the next "tools changed" this replica logs after the call. */
  nextChange(): Promise<void>;
}

/** A gateway on `store` whose log can be waited on. */
export async function replica(t: TestContext, store: RecordStore, config: Record<string, unknown>, also?: (line: string) => void): Promise<Replica> {
  const waiting: Array<() => void> = [];
  const log = (line: string): void => {
    also?.(line);
    if (line.includes('"event":"tools changed"')) for (const w of waiting.splice(0)) w();
  };
  const gw = await startGateway({ config: parseGatewayConfig(config, "/"), store, log });
  t.after(() => gw.close());
  return { gw, nextChange: () => new Promise((done) => waiting.push(done)) };
}

/** `hub_gateway ARGS…` in this process; its status, or the test fails with what it printed. */
export async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const io = recordingIo();
  const code = await run(args, env, io);
  assert.equal(code, 0, io.errors.join("\n"));
  return io.lines;
}

/** An SDK client on `url`; `streamOpen` resolves once its standalone stream is open at the gateway. */
async function connect(t: TestContext, url: string, token: string): Promise<{ client: Client; streamOpen: Promise<void>; listChanged: () => Promise<void> }> {
  let opened!: () => void;
  const streamOpen = new Promise<void>((done) => (opened = done));
  const fetchSeen: typeof fetch = async (input, init) => {
    const answer = await fetch(input, init);
    if ((init?.method ?? "GET") === "GET" && answer.status === 200) opened();
    return answer;
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } }, fetch: fetchSeen });
  const client = new Client({ name: "registry-spec", version: "1.0.0" });
  const waiting: Array<() => void> = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void waiting.splice(0).forEach((w) => w()));
  await client.connect(transport);
  t.after(() => client.close());
  return { client, streamOpen, listChanged: () => new Promise((done) => waiting.push(done)) };
}

/** The names /mcp lists, without the hub's own search tool. */
async function listed(client: Client): Promise<string[]> {
  return (await client.listTools()).tools
    .map((x) => x.name)
    .filter((n) => n !== "hub_search_tools")
    .sort();
}

async function which(client: Client): Promise<string> {
  const answer = await client.callTool({ name: "which", arguments: {} });
  return (answer.content as Array<{ text: string }>)[0]!.text;
}

export async function registryScenario(t: TestContext, stores: [RecordStore, RecordStore], storeArgs: string[], env: NodeJS.ProcessEnv = {}): Promise<void> {
  const accounts = new StoreAccountDirectory(stores[0]);
  await accounts.add("ada", "pw-ada", ["users"]);
  const token = (await new ApiTokens(stores[0], accounts).create("ada"))!.token;
  const [one, two] = [await startLabelledServer("one"), await startLabelledServer("two")];
  t.after(() => Promise.all([one.close(), two.close()]));
  const config = { tools: {}, limits: { lookupCacheSeconds: 0.2 } };
  const a = await replica(t, stores[0], config);
  const b = await replica(t, stores[1], config);
  const hub = await connect(t, `${b.gw.url}mcp`, token);
  await hub.streamOpen;
  assert.deepEqual(await listed(hub.client), []);

  // A new tool: both replicas serve it, and /mcp clients hear their list changed.
  let seen = [a.nextChange(), b.nextChange(), hub.listChanged()];
  await cli(["tool", "add", "calc", "--url", one.url, ...storeArgs], env);
  await Promise.all(seen);
  assert.deepEqual(await listed(hub.client), ["calc_which"]);
  const old = await connect(t, `${a.gw.url}api/mcp/calc/mcp`, token);
  assert.equal(await which(old.client), "one");

  // A new default revision: new sessions get it, the session already running keeps its own.
  seen = [a.nextChange(), b.nextChange(), hub.listChanged()];
  await cli(["tool", "add", "calc", "--url", two.url, "--revision", "v2", "--default", ...storeArgs], env);
  await Promise.all(seen);
  const fresh = await connect(t, `${b.gw.url}api/mcp/calc/mcp`, token);
  assert.equal(await which(fresh.client), "two");
  assert.equal(await which(old.client), "one", "the running session keeps the revision it started with");
  const pinned = await connect(t, `${b.gw.url}api/mcp/calc/mcp?revision=default`, token);
  assert.equal(await which(pinned.client), "one", "?revision= still reaches a revision that exists");

  // The same command again changes nothing, and no replica hears of it.
  assert.deepEqual(await cli(["tool", "add", "calc", "--url", two.url, "--revision", "v2", ...storeArgs], env), ["tool calc revision v2: unchanged"]);

  // The old revision removed with --now: its running session ends without waiting for the idle sweep.
  seen = [a.nextChange(), b.nextChange()];
  await cli(["tool", "remove", "calc", "--revision", "default", "--now", ...storeArgs], env);
  await Promise.all(seen);
  await assert.rejects(which(old.client));
  assert.equal(await which(fresh.client), "two");

  // Many at once, from a list a script wrote.
  const list = join(tempDir(t, "hubmcp-registry-import-"), "tools.json");
  writeFileSync(
    list,
    JSON.stringify([
      { name: "alpha", revisions: { default: { url: one.url } } },
      { name: "beta", groups: ["users"], revisions: { default: { url: two.url } } },
    ]),
  );
  seen = [a.nextChange(), b.nextChange(), hub.listChanged()];
  assert.deepEqual(await cli(["tool", "import", list, ...storeArgs], env), ["imported: 2 added, 0 updated, 0 unchanged"]);
  await Promise.all(seen);
  assert.deepEqual(await listed(hub.client), ["alpha_which", "beta_which", "calc_which"]);

  // A removed tool is gone for new sessions on every replica.
  seen = [a.nextChange(), b.nextChange(), hub.listChanged()];
  await cli(["tool", "remove", "calc", ...storeArgs], env);
  await Promise.all(seen);
  for (const r of [a, b]) {
    const answer = await fetch(`${r.gw.url}api/mcp/calc/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      }),
    });
    assert.equal(answer.status, 404);
    assert.equal(((await answer.json()) as { error: string }).error, "unknown_tool");
  }
  assert.deepEqual(await listed(hub.client), ["alpha_which", "beta_which"]);
  const registered = JSON.parse((await cli(["tool", "list", "--format", "json", ...storeArgs], env))[0]!) as Array<{ name: string; source: string }>;
  assert.deepEqual(
    registered.map((x) => `${x.name}:${x.source}`),
    ["alpha:registry", "beta:registry"],
  );
}
