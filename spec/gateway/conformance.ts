// The gateway side of `npm run conformance`'s second pass: a hub gateway whose one tool,
// `conformance`, has an `app` revision serving fixtures/conformance/app.ts, in a temporary
// data dir with one user and an API token. The suite cannot send an Authorization header,
// so a loopback forwarder in front of the gateway adds the token; everything else passes
// unchanged. Prints `ready at <url>` (the tool's base; the suite targets `<url>mcp`) and
// runs until SIGTERM or SIGINT, then stops the gateway (and the tool server it started)
// and removes the data dir. A failure to start is one line on stderr and exit status 1.
//   node --import tsx spec/gateway/conformance.ts [--port N]
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ApiTokens, FileRecordStore, parseGatewayConfig, startGateway, StoreAccountDirectory, type RunningGateway } from "../../lib/gateway/index.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const TOOL = "conformance";

/** Adds the bearer to every request on its way to the gateway. */
function forwarder(gateway: URL, token: string): Server {
  return createServer((req, res) => {
    const out = request(
      { host: gateway.hostname, port: gateway.port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${token}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on("error", () => res.destroy());
    res.on("close", () => out.destroy());
    req.pipe(out);
  });
}

async function main(argv: string[]): Promise<number> {
  const at = argv.indexOf("--port");
  const port = at >= 0 ? Number(argv[at + 1]) : 0;
  const dataDir = mkdtempSync(join(tmpdir(), "hubmcp-gw-conformance-"));
  let gateway: RunningGateway | undefined;
  let front: Server | undefined;
  const stop = async (): Promise<void> => {
    front?.closeAllConnections();
    front?.close();
    await gateway?.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const store = new FileRecordStore(dataDir);
    const accounts = new StoreAccountDirectory(store);
    await accounts.add(TOOL, "unused-password");
    const { token } = (await new ApiTokens(store, accounts).create(TOOL))!;
    const config = parseGatewayConfig({ tools: { [TOOL]: { revisions: { default: { app: "fixtures/conformance/app.ts" } } } } }, root);
    gateway = await startGateway({ config, store });
    const listening = forwarder(new URL(gateway.url), token);
    front = listening;
    await new Promise<void>((resolve, reject) => {
      listening.once("error", reject);
      listening.listen(port, "127.0.0.1", resolve);
    });
  } catch (err) {
    process.stderr.write(`gateway conformance server: ${err instanceof Error ? err.message : String(err)}\n`);
    await stop();
    return 1;
  }
  const { port: bound } = front.address() as { port: number };
  process.stdout.write(`gateway for the conformance suite ready at http://127.0.0.1:${bound}/api/mcp/${TOOL}/\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGTERM", resolve);
    process.once("SIGINT", resolve);
  });
  await stop();
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
