// A Slurm job's ready line is its account's word: the gateway forwards to the address it names
// only when that address is one of the node Slurm names for the job, and the server there
// answers a fresh challenge with the proof only the session's server (or the person's own
// process) can give. The whole attack, with a real cluster, is in slurm-backend.spec.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { refuseJobAddress } from "../../../lib/gateway/hosting/ready-address.ts";
import { requireSecret } from "../../../lib/http/session-secret.ts";

const SECRET = "s".repeat(20) + "e".repeat(20);

async function listening(t: { after(fn: () => unknown): void }, server: Server, host = "127.0.0.1"): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const { port } = server.address() as AddressInfo;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}/`;
}

test("the session's own server, on the job's node, is accepted: on its address or on a dual-stack socket", async (t) => {
  for (const [bind, reach] of [
    ["127.0.0.1", "127.0.0.1"],
    ["::", "127.0.0.1"],
  ] as const) {
    const server = createServer((_req, res) => res.end("app"));
    requireSecret(server, SECRET);
    const url = (await listening(t, server, bind)).replace(bind.includes(":") ? `[${bind}]` : bind, reach.includes(":") ? `[${reach}]` : reach);
    assert.equal(await refuseJobAddress(url, "localhost", SECRET), null, url);
  }
});

test("an address that is not the node's is refused without a request, and the log line does not repeat it", async (t) => {
  let reached = 0;
  const server = createServer((_req, res) => void (reached++, res.end()));
  requireSecret(server, SECRET);
  const url = (await listening(t, server)).replace("127.0.0.1", "127.0.0.2");
  const refused = await refuseJobAddress(url, "localhost", SECRET);
  assert.equal(refused, "the job's ready line names an address that is not its node's (localhost): refused");
  assert.equal(reached, 0);
  assert.match((await refuseJobAddress(url, "no-such-node.invalid", SECRET))!, /not its node's \(no-such-node\.invalid\)/);
});

test("a listener that is not the session's server is refused: another service, another secret, a closed port, one that never answers", async (t) => {
  const node = "localhost";
  const plain = await listening(
    t,
    createServer((_req, res) => res.end("{}")),
  );
  const other = createServer((_req, res) => res.end("app"));
  requireSecret(other, `${SECRET}-another-person`);
  const another = await listening(t, other);
  // Echoing the challenge back as the proof proves nothing.
  const echo = await listening(
    t,
    createServer((req, res) => {
      res.setHeader("x-hubmcp-proof", String(req.headers["x-hubmcp-challenge"]));
      res.end();
    }),
  );
  const silent = createServer(() => {});
  const mute = await listening(t, silent);
  t.after(() => silent.closeAllConnections());
  for (const url of [plain, another, echo]) {
    assert.match((await refuseJobAddress(url, node, SECRET))!, /did not prove it is the session's: refused/, url);
  }
  assert.match((await refuseJobAddress(mute, node, SECRET, 200))!, /did not prove/);
  const gone = createServer();
  const closed = await new Promise<string>((resolve) =>
    gone.listen(0, "127.0.0.1", () => {
      const { port } = gone.address() as AddressInfo;
      gone.close(() => resolve(`http://127.0.0.1:${port}/`));
    }),
  );
  assert.match((await refuseJobAddress(closed, node, SECRET))!, /did not prove/);
});
