// What the gateway's rewrite budget holds in memory (issue 33, point 11): a tool server whose
// resources/list answers are 4 MiB listings, read through the per-tool route by 32 clients at
// once, four rounds, then by 32 clients that never read their answer. The figure is the
// gateway's peak RSS above its idle RSS, against `rewriteBudgetBytes` (128 MiB by default):
// what the budget charges (the bytes, the parse and the written copies, until the answer has
// left) is bounded by it; the rest of the peak is garbage V8 had not collected yet.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileRecordStore } from "../../lib/gateway/index.ts";
import type { Servers } from "../child.ts";
import type { Row } from "../row.ts";
import { GATEWAY_TOOL } from "../servers/gateway.ts";
import { atMost, TARGETS } from "../targets.ts";
import { addBenchUser } from "./gateway-postgres.ts";

const BUDGET_MB = 128;
const ANSWER_BYTES = 4 * 1024 * 1024;
const CLIENTS = 32;
const ROUNDS = 4;
const PATH = `/api/mcp/${GATEWAY_TOOL}/mcp`;
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "resources/list", params: {} });

/** A listing of file resources, the shape a data tool answers with, of about `bytes`. */
function listing(bytes: number): Buffer {
  const entries: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes - 100; i++) {
    const entry = `{"uri":"file:///data/run-${i}/output.csv","name":"output-${i}.csv","mimeType":"text/csv","size":${i * 7}}`;
    entries.push(entry);
    size += entry.length + 1;
  }
  return Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"resources":[${entries.join(",")}]}}`);
}

async function toolServer(): Promise<Server> {
  const body = listing(ANSWER_BYTES);
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

/** A client that sends the request and never reads the answer. */
function stalled(port: number, bearer: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(
        `POST ${PATH} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n` +
          `authorization: ${bearer}\r\ncontent-length: ${LIST.length}\r\n\r\n${LIST}`,
      );
    });
    socket.once("error", reject);
    socket.once("data", () => (socket.pause(), resolve(socket)));
  });
}

export async function rewriteBudgetRow(servers: Servers): Promise<Row> {
  const dataDir = mkdtempSync(join(tmpdir(), "hubmcp-bench-rewrite-"));
  const tool = await toolServer();
  const sockets: Socket[] = [];
  try {
    const bearer = await addBenchUser(new FileRecordStore(dataDir));
    const { port: toolPort } = tool.address() as { port: number };
    const gateway = await servers.start("gateway", { args: [dataDir, `http://127.0.0.1:${toolPort}/`] });
    try {
      const idle = await gateway.stats(true);
      const statuses = new Map<number, number>();
      const count = (status: number): void => void statuses.set(status, (statuses.get(status) ?? 0) + 1);
      for (let round = 0; round < ROUNDS; round++) {
        await Promise.all(
          Array.from({ length: CLIENTS }, async () => {
            const res = await fetch(`http://127.0.0.1:${gateway.port}${PATH}`, {
              method: "POST",
              body: LIST,
              headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...bearer },
            });
            await res.arrayBuffer();
            count(res.status);
          }),
        );
      }
      // Each stalled client either holds its answer's charge or was refused (503) at once.
      for (let i = 0; i < CLIENTS; i++) sockets.push(await stalled(gateway.port, bearer.authorization!));
      const after = await gateway.stats();
      const grewMb = after.peakRssMb - idle.rssMb;
      const factor = grewMb / BUDGET_MB;
      const seen = [...statuses].map(([status, n]) => `${n}× ${status}`).join(", ");
      return {
        name: `gateway rewrite budget: peak memory for 4 MiB listings, ${CLIENTS} clients at once`,
        rssMb: after.rssMb,
        result: `peak RSS ${grewMb.toFixed(0)} MB above idle for a ${BUDGET_MB} MiB budget (${factor.toFixed(2)}×); ${seen}`,
        note: "the budget bounds what rewrites hold; the rest of the peak is garbage awaiting V8's collector",
        checks: [atMost("peak RSS growth / rewriteBudgetBytes", { value: factor, digits: 2, unit: "×" }, TARGETS.rewriteBudgetPeakFactor)],
      };
    } finally {
      for (const socket of sockets) socket.destroy();
      await gateway.stop();
    }
  } finally {
    tool.closeAllConnections();
    await new Promise<void>((resolve) => tool.close(() => resolve()));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
