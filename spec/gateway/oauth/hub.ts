// A real hub for the end-to-end OAuth specs: the gateway with its authorization server wired
// as `hub_gateway` wires it, the demo tools from fixtures/gateway/demo.json, a file data dir
// with one account, and a loopback page that receives the authorization redirect.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { StoreAccountDirectory } from "../../../lib/gateway/identity/accounts.ts";
import { ApiTokens } from "../../../lib/gateway/identity/api-tokens.ts";
import { parseGatewayConfigText } from "../../../lib/gateway/config/gateway-config.ts";
import { gatewayAuthorizationServer } from "../../../lib/gateway/identity/oauth-for-gateway.ts";
import { startGateway, type RunningGateway } from "../../../lib/gateway/server.ts";
import { FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";
import { listen } from "./harness.ts";
import { stateRootFor } from "../helpers.ts";

export const USER = "ada";
export const PASSWORD = "correct horse battery";

/** `oauth`: a section of gateway.json to use instead of the demo's (the identity specs name their provider there). */
export async function startHub(t: TestContext, oauth?: Record<string, unknown>): Promise<{ gateway: RunningGateway; dataDir: string; store: FileRecordStore }> {
  const dataDir = await mkdtemp(join(tmpdir(), "hub-oauth-"));
  // node:test runs after-hooks in the order they were added: the folder goes once the gateway
  // (and every write it still had under way) is closed, never under it.
  let gateway: RunningGateway | undefined;
  t.after(async () => {
    await gateway?.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const fixtures = fileURLToPath(new URL("../../../fixtures/gateway/", import.meta.url));
  const demo = JSON.parse(await readFile(join(fixtures, "demo.json"), "utf8")) as Record<string, unknown>;
  if (oauth) demo.oauth = oauth;
  const config = parseGatewayConfigText(JSON.stringify(demo), fixtures);
  const store = new FileRecordStore(dataDir);
  const accounts = new StoreAccountDirectory(store);
  await accounts.add(USER, PASSWORD, ["staff"]);
  await stateRootFor(t, store);
  let publicUrl = "http://127.0.0.1";
  const authorizationServer = gatewayAuthorizationServer({
    config,
    settings: config.oauth,
    store,
    accounts,
    apiTokens: new ApiTokens(store, accounts),
    publicUrl: () => publicUrl,
  });
  // Tool servers run without coverage: they load lib/ through start_mcp's TypeScript loader,
  // and merging their copies of the same files with this process's skews the report.
  gateway = await startGateway({ config, store, authorizationServer, childEnv: { ...process.env, NODE_V8_COVERAGE: "" } });
  publicUrl = gateway.publicUrl;
  return { gateway, dataDir, store };
}

/** A loopback redirect target, as a native client runs one; resolves with each callback's query. */
export async function callbackReceiver(t: TestContext): Promise<{ url: string; next: () => Promise<URLSearchParams> }> {
  let waiting: ((query: URLSearchParams) => void) | undefined;
  const arrived: URLSearchParams[] = [];
  const server = createServer((req, res) => {
    const query = new URL(req.url ?? "/", "http://x").searchParams;
    res.writeHead(200, { "Content-Type": "text/html" }).end("<!doctype html><title>Signed in</title><p>You can close this window.</p>");
    if (waiting) {
      waiting(query);
      waiting = undefined;
    } else arrived.push(query);
  });
  const base = await listen(server, t);
  return {
    url: `${base}/callback`,
    next: () => (arrived.length > 0 ? Promise.resolve(arrived.shift()!) : new Promise((resolve) => (waiting = resolve))),
  };
}
