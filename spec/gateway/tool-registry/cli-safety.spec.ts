// `hub_gateway tool …` (issue 37, points 2 and 5): every subcommand, its one-line errors and
// exit codes, and what a registration may not do: name a file another account owns or may
// write, run as an account gateway.json's `registry.runAs` does not allow, see a variable
// `registry.env` does not allow. A malformed record never stops the gateway serving the rest.
import assert from "node:assert/strict";
import { chmodSync, chownSync, copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { run } from "../../../cli/hub_gateway.ts";
import { FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";
import { REGISTRY } from "../../../lib/gateway/tool-registry/records.ts";
import { ROOT } from "../helpers.ts";
import { recordingIo } from "../../helpers/cli-io.ts";
import { tempDir } from "../../helpers/launcher-fixtures.ts";
import { replica } from "./replicas.ts";

async function tool(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const io = recordingIo();
  const code = await run(["tool", ...args], {}, io);
  return { code, out: io.lines, err: io.errors };
}

const NOBODY = 65534;
const ROOT_ONLY = process.getuid?.() === 0 ? false : "needs root, to give a file to another account";

test("tool subcommands: outcomes, one-line errors and exit codes", { timeout: 30_000 }, async (t) => {
  const dir = tempDir(t, "hubmcp-registry-cli-");
  const data = ["--data-dir", join(dir, "data")];
  const config = join(dir, "gateway.json");
  writeFileSync(config, JSON.stringify({ tools: { fixed: { revisions: { default: { url: "http://127.0.0.1:9/" } } } } }));
  const ok = async (args: string[], line: string): Promise<void> => {
    // Before the arguments: what follows `--` is a command's own.
    const r = await tool([...data, ...args]);
    assert.deepEqual([r.code, r.out, r.err], [0, [line], []], args.join(" "));
  };
  const refused = async (args: string[], code: number, message: RegExp): Promise<void> => {
    const r = await tool(args);
    assert.equal(r.code, code, args.join(" "));
    assert.match(r.err[0]!, message, args.join(" "));
  };
  await ok(["add", "calc", "--url", "http://127.0.0.1:9/"], "tool calc: added");
  await ok(["add", "calc", "--url", "http://127.0.0.1:9/"], "tool calc: unchanged");
  await ok(["add", "calc", "--revision", "cmd", "--command", "--", process.execPath, "-e", "0"], "tool calc revision cmd: updated");
  await ok(["update", "calc", "--groups", "staff,users"], "tool calc: updated");
  await ok(["update", "calc", "--revision", "cmd", "--default"], "tool calc revision cmd: updated");
  await ok(["update", "calc", "--revision", "web", "--url", "http://127.0.0.1:10/"], "tool calc revision web: updated");
  const tx = join(ROOT, "fixtures", "rappture", "fermi", "tool.xml");
  await ok(["add", "fermi", "--rappture", tx, "--isolation", "shared"], "tool fermi: added");
  await ok(["remove", "calc", "--revision", "web"], "tool calc revision web: updated");
  const shown = await tool(["show", "calc", ...data]);
  const record = JSON.parse(shown.out.join("\n")) as { name: string; by: string; tool: Record<string, unknown> };
  assert.deepEqual([record.name, record.by.startsWith("cli:uid="), record.tool.groups, record.tool.defaultRevision], ["calc", true, ["staff", "users"], "cmd"]);
  const text = await tool(["list", "--config", config, ...data]);
  assert.deepEqual(text.out, [
    "fixed  gateway.json  default=default  revisions=default  groups=-",
    "calc  registry  default=cmd  revisions=default,cmd  groups=staff,users",
    "fermi  registry  default=default  revisions=default  groups=-",
  ]);

  await refused(
    ["add", "calc", "--url", "http://127.0.0.1:11/", ...data],
    1,
    /^hub_gateway: tool calc already has a revision default defined otherwise; use tool update$/,
  );
  await refused(["add", "fixed", "--url", "http://127.0.0.1:11/", "--config", config, ...data], 1, /^hub_gateway: tool fixed is defined in gateway\.json/);
  await refused(["update", "nope", "--groups", "a", ...data], 1, /^hub_gateway: tool nope is not registered$/);
  await refused(["update", "calc", "--revision", "nope", ...data], 1, /^hub_gateway: tool calc has no revision nope$/);
  await refused(["remove", "calc", "--revision", "cmd", ...data], 1, /default revision; make another the default first/);
  await refused(["remove", "calc", "--revision", "nope", ...data], 1, /no revision nope/);
  await refused(["remove", "nope", ...data], 1, /tool nope is not registered/);
  await refused(["show", "nope", ...data], 1, /tool nope is not registered/);
  await refused(["add", "bad", "--url", "ftp://x", ...data], 2, /^hub_gateway: tools\.bad\.revisions\.default\.url must be an http\(s\) URL$/);
  await refused(["add", "bad!", "--url", "http://127.0.0.1:9/", ...data], 2, /^hub_gateway: tools has a tool name/);
  await refused(["import", join(dir, "missing.json"), ...data], 2, /cannot read the import file/);
  writeFileSync(join(dir, "bad.json"), "{");
  await refused(["import", join(dir, "bad.json"), ...data], 2, /not valid JSON/);
  writeFileSync(join(dir, "bad.json"), '{"name": "x"}');
  await refused(["import", join(dir, "bad.json"), ...data], 2, /must be a JSON list of tools/);
  writeFileSync(
    join(dir, "bad.json"),
    JSON.stringify([
      { name: "ok", revisions: { default: { url: "http://127.0.0.1:9/" } } },
      { name: "rel", revisions: { default: { app: "app.py" } } },
    ]),
  );
  await refused(
    ["import", join(dir, "bad.json"), ...data],
    2,
    /^hub_gateway: tools\.rel\.revisions\.default\.app must be an absolute path in a registered tool$/,
  );
  await refused(["show", "ok", ...data], 1, /not registered/);
  for (const [args, message] of [
    [[], /tool needs add, update/],
    [["add"], /tool add needs a NAME/],
    [["import"], /tool import needs a FILE/],
    [["add", "x"], /tool add needs one of/],
    [["add", "x", "--url", "http://h/", "--app", "a"], /give one of/],
    [["add", "x", "--isolation", "shared"], /--isolation needs --app or --rappture/],
    [["add", "x", "--url", "http://h/", "--isolation", "shared"], /--isolation needs --app or --rappture/],
    [["list", "x"], /tool list takes no NAME/],
    [["list", "--format", "yaml"], /--format must be json or text/],
    [["add", "x", "--command"], /--command needs the command after --/],
    [["add", "x", "--", "prog"], /--command needs the command after --/],
    [["add", "x", "--command", "--"], /--command needs a program after --/],
  ] as Array<[string[], RegExp]>)
    await refused([...data, ...args], 2, message);
});

test("a registration cannot name a file another account owns or may write, nor widen runAs or env", { skip: ROOT_ONLY, timeout: 30_000 }, async (t) => {
  const dir = tempDir(t, "hubmcp-registry-safety-");
  const data = ["--data-dir", join(dir, "data")];
  const app = join(dir, "app.py");
  copyFileSync(join(ROOT, "fixtures", "rappture", "fermi", "fermi.py"), app);
  const config = join(dir, "gateway.json");
  writeFileSync(config, JSON.stringify({ tools: {}, registry: { runAs: ["nobody"], env: ["LANGUAGE"] } }));
  assert.equal((await tool(["add", "mine", "--app", app, ...data])).code, 0, "a file of the gateway's own account");

  chownSync(app, NOBODY, NOBODY);
  const owned = await tool(["add", "theirs", "--app", app, ...data]);
  assert.deepEqual(
    [owned.code, owned.err],
    [2, [`hub_gateway: tools.theirs.revisions.default.app names ${app}, which or whose folder another account owns or its group may write`]],
  );
  chownSync(app, 0, 0);
  chmodSync(app, 0o664);
  assert.equal((await tool(["add", "theirs", "--app", app, ...data])).code, 2, "a file its group may write");
  chmodSync(app, 0o646);
  assert.match((await tool(["add", "theirs", "--app", app, ...data])).err[0]!, /which or whose folder every account may write$/);
  chmodSync(app, 0o644);

  const list = join(dir, "tools.json");
  const as = (runAs: string, env?: string[]) => [{ name: "who", runAs, ...(env ? { env } : {}), revisions: { default: { app } } }];
  writeFileSync(list, JSON.stringify(as("root")));
  const widened = await tool(["import", list, "--config", config, ...data]);
  assert.deepEqual([widened.code, widened.err], [2, ["hub_gateway: tools.who.runAs is not an account gateway.json's registry.runAs allows"]]);
  writeFileSync(list, JSON.stringify(as("nobody")));
  assert.equal((await tool(["import", list, ...data])).code, 2, "without the config, no runAs is allowed");
  writeFileSync(list, JSON.stringify(as("nobody", ["HUBMCP_STORE_PASSWORD"])));
  assert.match(
    (await tool(["import", list, "--config", config, ...data])).err[0]!,
    /^hub_gateway: tools\.who\.env names a variable gateway\.json's registry\.env does not allow$/,
  );
  writeFileSync(list, JSON.stringify(as("nobody", ["LANGUAGE"])));
  assert.deepEqual((await tool(["import", list, "--config", config, ...data])).out, ["imported: 1 added, 0 updated, 0 unchanged"]);
});

test("a malformed record is skipped with one log line; the other tools are served", { timeout: 30_000 }, async (t) => {
  const dir = tempDir(t, "hubmcp-registry-broken-");
  const store = await FileRecordStore.open(dir);
  await store.put(REGISTRY, "broken", { tool: { revisions: { default: { url: 42 } } }, by: "hand", at: "now" });
  await store.put(REGISTRY, "fixed", { tool: { revisions: { default: { url: "http://127.0.0.1:9/" } } }, by: "hand", at: "now" });
  await store.put(REGISTRY, "good", { tool: { revisions: { default: { url: "http://127.0.0.1:9/" } } }, by: "hand", at: "now" });
  const lines: string[] = [];
  const r = await replica(t, store, { tools: { fixed: { revisions: { default: { url: "http://127.0.0.1:10/" } } } } }, (l) => lines.push(l));
  const status = async (name: string): Promise<number> => (await fetch(`${r.gw.url}api/mcp/${name}/mcp`, { method: "POST" })).status;
  assert.deepEqual([await status("good"), await status("broken"), await status("fixed")], [401, 404, 401]);
  const skipped = lines.filter((l) => l.includes("registered tool skipped")).map((l) => JSON.parse(l) as { tool: string; error: string });
  assert.deepEqual(
    skipped.map((s) => [s.tool, s.error]),
    [
      ["broken", "tools.broken.revisions.default.url must be an http(s) URL"],
      ["fixed", "gateway.json defines a tool of this name; its definition is served"],
    ],
  );
});

test("with --config naming a file audit trail, a change made by the CLI is a line of that trail too", { timeout: 30_000 }, async (t) => {
  const dir = tempDir(t, "hubmcp-registry-audit-");
  const trail = join(dir, "trail");
  mkdirSync(trail, { mode: 0o700 });
  const config = join(dir, "gateway.json");
  writeFileSync(config, JSON.stringify({ tools: {}, audit: { dir: trail } }));
  const base = ["--data-dir", join(dir, "data"), "--config", config];
  assert.equal((await tool([...base, "add", "calc", "--url", "http://127.0.0.1:9/SECRET-PATH/"])).code, 0);
  assert.equal((await tool([...base, "add", "calc", "--url", "http://127.0.0.1:9/SECRET-PATH/"])).code, 0, "unchanged: no line");
  assert.equal((await tool([...base, "remove", "calc"])).code, 0);
  const raw = readFileSync(join(trail, "audit.jsonl"), "utf8");
  assert.ok(!raw.includes("SECRET-PATH"));
  const lines = raw
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { event: string; person: string; method: string; before: string; after: string });
  assert.deepEqual(
    lines.map((l) => [l.event, l.person.startsWith("cli:uid="), l.method, l.before, l.after]),
    [
      ["registry.change", true, "add", "none", "revisions=default:url; default=default; groups="],
      ["registry.change", true, "remove", "revisions=default:url; default=default; groups=", "none"],
    ],
  );
  assert.equal(statSync(join(trail, "audit.jsonl")).mode & 0o777, 0o600);
});
