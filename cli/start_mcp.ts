#!/usr/bin/env node
// PLACEHOLDER launcher (local mode only) until the full start_mcp lands.
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import { parseArgs } from "node:util";

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      app: { type: "string", short: "a" },
      host: { type: "string", default: "0.0.0.0" },
      port: { type: "string", short: "p" },
      debug: { type: "boolean", default: false },
    },
  });
  if (!values.app) {
    process.stderr.write("usage: start_mcp --app FILE [--host HOST] [--port PORT] [--debug]\n");
    return 2;
  }
  const file = resolve(values.app);
  if (/\.[mc]?ts$/.test(file)) {
    const { register } = await import("tsx/esm/api");
    register();
  }
  const mod = (await import(pathToFileURL(file).href)) as { server?: unknown; default?: unknown };
  const server = (mod.server ?? mod.default) as { listen?: (o: object) => Promise<{ url: string }> } | undefined;
  if (!server || typeof server.listen !== "function") {
    process.stderr.write(`${values.app} does not export a McpServer as "server"\n`);
    return 1;
  }
  const running = await server.listen({ host: values.host, port: Number(values.port ?? env.MCP_PORT ?? 8000) });
  process.stdout.write(`MCP server ready at ${running.url}\nSSE endpoint: ${running.url}sse\n`);
  return 0;
}

main(process.argv.slice(2), process.env).then((code) => {
  if (code !== 0) process.exitCode = code;
});
