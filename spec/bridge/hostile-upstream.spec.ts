// hub_bridge against a hostile tool behind the gateway: a tiny fake gateway that answers
// tools/call with bytes no real tool server sends (a 20,000-deep JSON answer, a 5.5 MB event
// of one-character data lines, an event of empty data lines past the size bound). The real
// bridge process answers each with an error (JSON-RPC, or a tool error result for a call that broke off) or
// the result, and keeps serving.
// (The bridge against the real gateway and start_mcp: spec/cli/hub_bridge-gateway.spec.ts.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { BRIDGE_CLI, bridgeEnv } from "./bridge-client.ts";

const TOKEN = "hubtok_hostile_spec";
const DEEP = 20_000;

function sse(res: ServerResponse, chunks: Iterable<string>): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
  for (const chunk of chunks) res.write(chunk);
  res.end();
}

function* repeated(line: string, times: number): Generator<string> {
  for (let done = 0; done < times; done += 50_000) yield line.repeat(Math.min(50_000, times - done));
}

/** A gateway stand-in whose one tool, `evil`, answers tools/call by the tool's name. */
async function hostileHub(t: test.TestContext): Promise<string> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return void res.writeHead(401).end();
      if (req.method !== "POST") return void res.writeHead(405).end();
      const msg = JSON.parse(body) as { id?: number; method: string; params?: { name?: string } };
      if (msg.id === undefined) return void res.writeHead(202).end();
      const reply = (result: string): void => {
        res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" });
        res.end(`{"jsonrpc":"2.0","id":${msg.id},"result":${result}}`);
      };
      if (msg.method === "initialize")
        return reply(JSON.stringify({ protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "evil", version: "1" } }));
      if (msg.method === "tools/list") return reply('{"tools":[{"name":"deep","inputSchema":{"type":"object"}}]}');
      switch (msg.params?.name) {
        case "deep":
          return reply(`{"content":[],"deep":${"[".repeat(DEEP)}${"]".repeat(DEEP)}}`);
        case "many-lines": {
          // One event: a JSON answer spread over 700,000 short data lines (5.5 MB).
          const head = `data: {"jsonrpc":"2.0","id":${msg.id},"result":{"content":[],"n":[0\n`;
          return sse(res, [head, ...repeated("data: ,1\n", 700_000), "data: ]}}\n\n"]);
        }
        case "deep-note": {
          // A notification too deep to relay, then the answer.
          const note = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":${"[".repeat(DEEP)}${"]".repeat(DEEP)}}}`;
          return sse(res, [`data: ${note}\n\n`, `data: {"jsonrpc":"2.0","id":${msg.id},"result":{"content":[{"type":"text","text":"after"}]}}\n\n`]);
        }
        case "empty-lines":
          // 36 MB of empty data lines: past the bridge's 32 MiB event bound.
          return sse(res, repeated("data:\n", 6_000_000));
        default:
          return reply('{"content":[{"type":"text","text":"fine"}]}');
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  t.after(() => new Promise((done) => server.close(done)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test("hostile answers become clear errors (or results), and the bridge keeps serving", { timeout: 120_000 }, async (t) => {
  const api = await hostileHub(t);
  const child = spawn(process.execPath, ["--import", "tsx", BRIDGE_CLI], {
    env: bridgeEnv({ HUB_TOKEN: TOKEN, HUB_API: api, HUB_TOOLS: "evil" }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  t.after(() => child.kill());
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  // stderr and stdout are separate pipes: a line logged before an answer may arrive after it.
  const logged = (pattern: RegExp): Promise<void> =>
    new Promise((done) => {
      const check = (): void => void (pattern.test(stderr) && (child.stderr.off("data", check), done()));
      child.stderr.on("data", check);
      check();
    });
  const answers = new Map<number, (line: Record<string, unknown>) => void>();
  let buffered = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      // A 20,000-deep answer, had it been relayed, is not even readable here: only small lines are expected.
      const message = JSON.parse(line) as { id?: number };
      if (typeof message.id === "number") answers.get(message.id)?.(message);
    }
  });
  let nextId = 1;
  const ask = (method: string, params: Record<string, unknown> = {}): Promise<Record<string, any>> => {
    const id = nextId++;
    const answer = new Promise<Record<string, any>>((done, fail) => {
      answers.set(id, done);
      void exited.then((code) => fail(new Error(`hub_bridge exited (${code}) before answering ${method}\n${stderr}`)));
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return answer;
  };
  const init = await ask("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "spec", version: "1" } });
  assert.equal(init.result.serverInfo.name, "evil");
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);

  const deep = await ask("tools/call", { name: "deep", arguments: {} });
  assert.equal(deep.error.code, -32603);
  assert.match(deep.error.message, /could not be relayed: it is nested too deeply/);

  const note = await ask("tools/call", { name: "deep-note", arguments: {} });
  assert.deepEqual(note.result.content, [{ type: "text", text: "after" }]);
  await logged(/dropped a message from a tool: it is nested too deeply/);

  const many = await ask("tools/call", { name: "many-lines", arguments: {} });
  assert.equal(many.result.n.length, 700_001);

  const empty = await ask("tools/call", { name: "empty-lines", arguments: {} });
  // A tool that broke off is a tool error result, as for any failed call.
  assert.equal(empty.result.isError, true);
  assert.match(empty.result.content[0].text, /stopped answering mid-reply \(an event was too large\)/);

  const fine = await ask("tools/call", { name: "fine", arguments: {} });
  assert.deepEqual(fine.result.content, [{ type: "text", text: "fine" }]);
  assert.equal(child.exitCode, null);
});
