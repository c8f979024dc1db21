// A node:test reporter that writes one JSON line per skipped test (file, name, reason), so
// spec/run.mjs can name every skip and what it needs once the run is over.
export default async function* skipped(source) {
  for await (const event of source) {
    if (event.type !== "test:pass" || event.data.skip === undefined) continue;
    const reason = typeof event.data.skip === "string" ? event.data.skip : "no reason given";
    yield `${JSON.stringify({ file: event.data.file ?? "", name: event.data.name, reason })}\n`;
  }
}
