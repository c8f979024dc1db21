// The MCP conformance suite (server side) run *through* the gateway against
// fixtures/conformance/app.ts. The suite cannot send an Authorization header, so a loopback
// forwarder in front of the gateway adds the API token; everything else passes unchanged.
//   MCP_CONFORMANCE=/path/to/conformance node --import tsx spec/gateway/conformance.ts [suite options]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { StoreAccountDirectory } from "../../lib/gateway/accounts.ts";
import { ApiTokens } from "../../lib/gateway/api-tokens.ts";
import { parseGatewayConfig } from "../../lib/gateway/config.ts";
import { startGateway } from "../../lib/gateway/server.ts";
import { FileRecordStore } from "../../lib/gateway/store/file-record-store.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const suite = process.env.MCP_CONFORMANCE ?? "conformance";
const dataDir = mkdtempSync(join(tmpdir(), "hubmcp-gw-conformance-"));
const store = new FileRecordStore(dataDir);
const accounts = new StoreAccountDirectory(store);
await accounts.add("conformance", "unused-password");
const { token } = (await new ApiTokens(store, accounts).create("conformance"))!;
const gateway = await startGateway({
  config: parseGatewayConfig({ tools: { conformance: { revisions: { default: { app: "fixtures/conformance/app.ts" } } } } }, root),
  store,
});
const upstream = new URL(gateway.url);
const forwarder = createServer((req, res) => {
  const out = request(
    { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${token}` } },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  out.on("error", () => res.destroy());
  res.on("close", () => out.destroy());
  req.pipe(out);
});
await new Promise<void>((done) => forwarder.listen(0, "127.0.0.1", done));
const port = (forwarder.address() as { port: number }).port;
const url = `http://127.0.0.1:${port}/api/mcp/conformance/mcp`;
let status = 1;
try {
  const run = spawn(suite, [url, ...process.argv.slice(2)], { stdio: "inherit" });
  const limitMs = Number(process.env.CONFORMANCE_TIMEOUT_MS ?? 300_000);
  const timer = setTimeout(() => run.kill("SIGKILL"), limitMs);
  status = await new Promise<number>((resolve) => {
    run.once("error", () => resolve(127));
    run.once("exit", (code) => resolve(code ?? 1));
  });
  clearTimeout(timer);
} finally {
  forwarder.closeAllConnections();
  forwarder.close();
  await gateway.close();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exitCode = status;
