// The stdio baseline: bare newline-delimited JSON over stdin/stdout, answering the bench's
// JSON-RPC `tools/call add` (and `initialize`) with the same shapes as the HTTP baseline.
// Run as its own process: `node stdio-echo.js`.
type Message = { id?: number | string; method?: string; params?: { arguments?: { a?: number; b?: number } } };

function answer(message: Message): string | null {
  if (message.id === undefined) return null;
  if (message.method === "initialize") {
    return JSON.stringify({
      jsonrpc: "2.0",
      id: message.id,
      result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "echo", version: "1.0.0" } },
    });
  }
  const sum = (message.params?.arguments?.a ?? 0) + (message.params?.arguments?.b ?? 0);
  return JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: String(sum) }], isError: false } });
}

let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => {
  pending += chunk;
  let out = "";
  for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    if (line.trim() === "") continue;
    const reply = answer(JSON.parse(line) as Message);
    if (reply !== null) out += `${reply}\n`;
  }
  if (out) process.stdout.write(out);
});
process.stdin.once("end", () => process.exit(0));
