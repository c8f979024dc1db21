// The operator's page's parts on their own: the page and chart for every state they show,
// /proc readings, the usage view's cache, the page without an audit folder and with its trail
// not yet written, and its per-address limit.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { adminPage, type AdminView } from "../../../lib/gateway/admin/page.ts";
import { callsChart } from "../../../lib/gateway/admin/chart.ts";
import { processUse } from "../../../lib/gateway/admin/proc.ts";
import { AdminUsageView } from "../../../lib/gateway/admin/usage-view.ts";
import { PageClient } from "../account/client.ts";
import { fake, startHarness } from "../helpers.ts";
import { startPagesHub } from "../account/hub.ts";

const VIEW: AdminView = {
  user: "carol<script>",
  action: "admin",
  csrf: "s",
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

test("the page without an audit folder, before the trail's first line, and over its limit", { timeout: 60_000 }, async (t) => {
  const off = await startPagesHub(t, { tools: { fake: { revisions: { default: fake() } } }, admin: { groups: ["staff"] } });
  const operator = new PageClient(off.base);
  assert.match(await operator.signIn("carol", "pw-carol", "admin"), /The audit trail is off/);
  const dir = mkdtempSync(join(tmpdir(), "admin-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const unwritten = await startPagesHub(t, {
    tools: { fake: { revisions: { default: fake() } } },
    admin: { groups: ["staff"] },
    audit: { dir: join(dir, "later") },
    oauth: { trustedUserHeader: "X-Remote-User" },
  });
  // A person the front proxy vouches for: no sign-in of the hub's, so no line yet; the page gives their browser its cookie for the forms.
  const vouched = await new PageClient(unwritten.base, { "X-Remote-User": "carol" }).get("developer/oauth/admin");
  assert.match(vouched.headers.getSetCookie()[0]!, /^hub_oauth=/);
  assert.match(await vouched.text(), /No audit lines yet/);
  // One address, many requests: the hub's pages' limit (60 a minute, the account page's too) holds it back.
  const statuses = new Set<number>();
  for (let i = 0; i < 61; i++) {
    const res = await operator.get("developer/oauth/admin");
    await res.arrayBuffer();
    statuses.add(res.status);
    if (res.status === 429) assert.match(res.headers.get("retry-after")!, /^\d+$/);
  }
  assert.deepEqual([...statuses].sort(), [200, 429]);
  const form = await operator.post("developer/oauth/admin", { action: "stop-session" });
  assert.equal(form.status, 429, "its forms too");
});

test("a gateway without the OAuth server has no sign-in pages, so no operator's page: /admin is a 404", { timeout: 60_000 }, async (t) => {
  const h = await startHarness(t, { tools: { fake: { revisions: { default: fake() } } }, admin: { groups: ["staff"] } });
  for (const path of ["admin", "account"]) {
    const res = await fetch(`${h.base}/${path}`, { headers: { authorization: `Bearer ${h.tokens.carol}` }, redirect: "manual" });
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { error: string }).error, "not_found");
  }
});
