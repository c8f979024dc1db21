// A server with async tools the specs drive by hand: each run waits on a gate named by its
// `key` argument, and reports when it started and when its signal aborted.
import { McpServer, type AsyncOptions, type Logger, type ToolContext } from "../../lib/index.ts";
import { deferred, RpcClient, type Deferred } from "./harness.ts";

export class Gates {
  readonly #gates = new Map<string, Deferred<unknown>>();
  readonly #started = new Map<string, Deferred<void>>();
  readonly #aborted = new Map<string, Deferred<void>>();

  static #get<T>(map: Map<string, Deferred<T>>, key: string): Deferred<T> {
    let d = map.get(key);
    if (!d) map.set(key, (d = deferred<T>()));
    return d;
  }
  gate(key: string): Deferred<unknown> {
    return Gates.#get(this.#gates, key);
  }
  /** Resolves once the handler for `key` runs. */
  started(key: string): Promise<void> {
    return Gates.#get(this.#started, key).promise;
  }
  /** Resolves once the signal of the handler for `key` aborts. */
  aborted(key: string): Promise<void> {
    return Gates.#get(this.#aborted, key).promise;
  }
  markStarted(key: string): void {
    Gates.#get(this.#started, key).resolve();
  }
  markAborted(key: string): void {
    Gates.#get(this.#aborted, key).resolve();
  }
}

const keyed = { type: "object", properties: { key: { type: "string" } }, required: ["key"] } as const;

export function fixtureServer(async: AsyncOptions = {}, logger?: Logger): { server: McpServer; gates: Gates } {
  const gates = new Gates();
  const server = new McpServer("async-spec", { version: "1.0.0", async, logger });
  server.tool((a: number, b: number) => a + b, {
    name: "add",
    inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  });
  server.asyncTool(
    ({ key }: { key: string }) => {
      gates.markStarted(key);
      return gates.gate(key).promise;
    },
    { name: "gated", description: "Waits for the test", inputSchema: keyed },
  );
  server.asyncTool(
    (_args: object) => {
      throw new Error("boom");
    },
    { name: "fails", inputSchema: { type: "object" } },
  );
  // Context-bearing and deaf to its signal: it only notes the abort and waits for its gate.
  server.asyncTool(
    ({ key }: { key: string }, ctx: ToolContext) => {
      ctx.signal.addEventListener("abort", () => gates.markAborted(key), { once: true });
      gates.markStarted(key);
      ctx.reportProgress(1, 2, "half way");
      ctx.info(`working on ${key}`);
      return gates.gate(key).promise.then((value) => {
        ctx.reportProgress(2, 2);
        return value;
      });
    },
    { name: "watcher", inputSchema: keyed, context: true },
  );
  // Asks the user mid-run; its task is input_required until the answer arrives.
  server.asyncTool(
    async ({ key }: { key: string }, ctx: ToolContext) => {
      gates.markStarted(key);
      const answer = await ctx.elicit("Whom should I greet?", { type: "object", properties: { name: { type: "string" } }, required: ["name"] });
      return answer.action === "accept" ? `hello ${String(answer.content.name)}` : `no answer (${answer.action})`;
    },
    { name: "asks", inputSchema: keyed, context: true },
  );
  return { server, gates };
}

/** The fixture server on a free port, and a client initialized with `capabilities`; closed after the test. */
export async function serveFixture(
  t: { after(fn: () => unknown): void },
  capabilities: Record<string, unknown>,
  options: AsyncOptions = {},
): Promise<{ gates: Gates; running: Awaited<ReturnType<McpServer["listen"]>>; client: RpcClient }> {
  const { server, gates } = fixtureServer(options);
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const client = new RpcClient(running.url);
  await client.initialize(capabilities);
  return { gates, running, client };
}
