// The operator's page's parts on their own: the page and chart for every state they show,
// /proc readings, the page's cookie on https, the usage view's cache, and the page without
// an audit folder, with a guessed password, and with its trail not yet written.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { AdminSessions } from "../../../lib/gateway/admin/session.ts";
import { adminPage, type AdminView } from "../../../lib/gateway/admin/page.ts";
import { callsChart } from "../../../lib/gateway/admin/chart.ts";
import { processUse } from "../../../lib/gateway/admin/proc.ts";
import { AdminUsageView } from "../../../lib/gateway/admin/usage-view.ts";
import { StoreAccountDirectory } from "../../../lib/gateway/accounts.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";
import { fake, startHarness } from "../helpers.ts";

const VIEW: AdminView = {
  user: "carol<script>",
  path: "/hub/admin",
  csrf: { stop: "s", signOut: "o" },
  health: { version: "1.0", uptimeSeconds: 7200, store: "failing", sessions: 1, sessionsCap: 2, auditSink: "stdout", auditDropped: 3, spansDropped: 4 },
  sessions: [{ instance: "i1", person: "ann", tool: "sim", revision: "default", backend: "slurm", since: 0, jobId: "42" }],
  note: "The audit trail is off",
  now: 100_000,
};

test("the page: escaped values, a failing store and dropped lines marked, a Slurm job, no usage but a note", () => {
  const html = adminPage(VIEW);
  assert.ok(!html.includes("carol<script>") && html.includes("carol&#60;script&#62;"));
  assert.match(html, /<dd class="bad">not answering<\/dd>/);
  assert.match(html, /<dt>Audit lines dropped<\/dt><dd class="bad">3<\/dd>/);
  assert.match(html, /<dt>Up for<\/dt><dd>2.0 h<\/dd>/);
  assert.match(html, /slurm \(job 42\)/);
  assert.match(html, /<td title="1970-01-01T00:00:00.000Z">2 min ago<\/td><td class="n">—<\/td><td class="n">—<\/td>/);
  assert.match(html, /The audit trail is off/);
  assert.match(html, /No errors in the last 30 days/);
  const empty = adminPage({
    ...VIEW,
    sessions: [],
    usage: { day: [], week: [], month: [], perDay: [], errors: [{ time: "t", event: "session.start-failed" }] },
  });
  assert.match(empty, /No tool session runs on this replica/);
  assert.match(empty, /No use\./);
  assert.match(empty, /<td>t<\/td><td>session.start-failed<\/td><td>—<\/td><td>—<\/td><td><\/td><td class="n"><\/td><td><\/td>/);
  assert.match(callsChart([]), /at most 1 a day/);
});

test("/proc readings: a live process has CPU and memory, anything else is unknown", async () => {
  const own = await processUse(process.pid);
  assert.ok(own && own.rssBytes > 0 && own.cpuSeconds >= 0);
  assert.equal(await processUse(undefined), undefined);
  assert.equal(await processUse(-1), undefined);
  assert.equal(await processUse(2 ** 30), undefined);
});

test("on https the page's cookie is __Secure- and Secure; an expired or unknown session is nobody", async () => {
  const store = new MemoryRecordStore();
  const accounts = new StoreAccountDirectory(store);
  await accounts.add("ann", "pw", ["ops"]);
  const sessions = new AdminSessions(store, accounts, () => "https://hub.example.org/");
  const cookie = await sessions.signIn("ann");
  assert.match(cookie, /^__Secure-hub_admin=[A-Za-z0-9_-]{43}; Path=\/admin; Max-Age=28800; HttpOnly; SameSite=Strict; Secure$/);
  const req = (c: string) => ({ headers: { cookie: c } }) as unknown as import("node:http").IncomingMessage;
  const value = cookie.split(";")[0]!;
  assert.equal((await sessions.current(req(value)))?.user, "ann");
  assert.equal(await sessions.current(req("__Secure-hub_admin=short")), undefined);
  for (const { id } of await store.list("admin-sessions")) await store.put("admin-sessions", id, { user: "ann", expires_at: 1 });
  assert.equal(await sessions.current(req(value)), undefined);
  assert.equal(await sessions.csrfValid(undefined, "stop", "x"), false);
  assert.equal(await sessions.csrfValid("s", "stop", undefined), false);
});

test("the usage view keeps a reading for half a minute and forgets a failed one", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "admin-usage-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const missing = new AdminUsageView(join(dir, "nope"));
  await assert.rejects(missing.read(1_000_000), /ENOENT/);
  await assert.rejects(missing.read(1_000_001), /ENOENT/, "a failure is read again, not kept");
  const view = new AdminUsageView(dir);
  const first = view.read(1_000_000);
  assert.equal(view.read(1_010_000), first);
  assert.notEqual(view.read(1_040_001), first);
  assert.deepEqual((await first).perDay.length, 30);
});

test("the page without an audit folder, before the trail's first line, and after guessed passwords", { timeout: 60_000 }, async (t) => {
  const off = await startHarness(t, { tools: { fake: { revisions: { default: fake() } } }, admin: { groups: ["staff"] } });
  const auth = { authorization: `Bearer ${off.tokens.carol}` };
  assert.match(await (await fetch(`${off.base}/admin`, { headers: auth })).text(), /The audit trail is off/);
  const dir = mkdtempSync(join(tmpdir(), "admin-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const unwritten = await startHarness(t, {
    tools: { fake: { revisions: { default: fake() } } },
    admin: { groups: ["staff"] },
    audit: { dir: join(dir, "later") },
  });
  assert.match(await (await fetch(`${unwritten.base}/admin`, { headers: { authorization: `Bearer ${unwritten.tokens.carol}` } })).text(), /No audit lines yet/);
  // Guessing: after five wrong passwords the account's tries wait, the right one included.
  const signIn = (password: string) =>
    fetch(`${off.base}/admin/sign-in`, {
      method: "POST",
      body: new URLSearchParams({ username: "carol", password }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      redirect: "manual",
    });
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await signIn("guess")).status);
  const right = await signIn("pw-carol");
  assert.deepEqual([...statuses, right.status], [401, 401, 401, 401, 401, 429, 429]);
  assert.match(right.headers.get("retry-after")!, /^\d+$/);
  // No user name at all is simply wrong, not a try against anyone.
  const nobody = await fetch(`${off.base}/admin/sign-in`, {
    method: "POST",
    body: "password=x",
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  assert.equal(nobody.status, 401);
});
