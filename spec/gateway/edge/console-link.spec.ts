// The console link (`console_url` in the bootstrap answer, `GET /api/mcp/{tool}`): opened in a browser it
// sets the session proxy cookie for that path only and lands on the person's own console; a
// replayed, expired, tampered or someone else's ticket gets a page saying why, never a cookie.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CONSOLE_LINK_USES, ConsoleLinkUses } from "../../../lib/gateway/edge/console-link.ts";
import { CONSOLE_TICKET_LIFETIME_MS, mintConsoleTicket, type TicketBinding } from "../../../lib/gateway/edge/console-ticket.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";
import type { ToolSessionRecord } from "../../../lib/gateway/tool-sessions/records.ts";
import { browserSkip, launchBrowser } from "../../helpers/browser.ts";
import { fake, json, post, rpc, startHarness, type Harness } from "../helpers.ts";

const skip = browserSkip();
// The app children run without coverage (see spec/gateway/sdk-client.spec.ts).
const CHILD = { childEnv: { ...process.env, NODE_V8_COVERAGE: "" } };

interface PageElement {
  textContent: string | null;
}
declare const document: { querySelector(selector: string): PageElement | null };

async function bootstrap(h: Harness, tool: string, token: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${h.base}/api/mcp/${tool}`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200);
  return json(res);
}

/** Opens a link at the gateway itself (its publicUrl may be a proxy's), without following the redirect. */
function open(h: Harness, link: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${h.base}/console${new URL(link).search}`, { redirect: "manual", ...init });
}

async function bindingOf(h: Harness, key: string): Promise<TicketBinding> {
  const rec = (await h.store.get<ToolSessionRecord>("tool-sessions", key))!;
  return { user: rec.user, tool: rec.tool, revision: rec.revision, instance: rec.instance, weberPrefix: rec.weberPrefix! };
}

async function refusal(res: Response, status: number, words: RegExp): Promise<void> {
  assert.equal(res.status, status);
  assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
  assert.equal(res.headers.get("set-cookie"), null, "a refused link sets no cookie");
  assert.match(await res.text(), words);
}

test("a browser opens the console from the gateway's link, once", { skip, timeout: 120_000 }, async (t) => {
  const h = await startHarness(t, { tools: { mcpdemo: { revisions: { default: { app: "fixtures/demo/app.ts" } } } } }, CHILD);
  const info = await bootstrap(h, "mcpdemo", h.tokens.alice);
  const link = String(info.console_url);
  assert.equal(info.console_url_expires_in, CONSOLE_TICKET_LIFETIME_MS / 1000);
  assert.ok(link.startsWith(`${h.base}/console?ticket=`), link);
  const { weberPrefix } = await bindingOf(h, "alice\nmcpdemo\ndefault");

  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(`page error: ${(err as Error).message}`));
  page.on("console", (msg) => void (msg.type() === "error" && problems.push(`console error: ${msg.text()}`)));
  await page.goto(link);
  assert.equal(new URL(page.url()).pathname, `${weberPrefix}/`, "the browser lands on the console, the ticket gone from its address");
  await page.waitForSelector("body[data-ready]");
  assert.equal(await page.$eval("#status", (el) => el.textContent), "Connected");
  for (const tool of ["add", "divide", "projectile", "slow_sum", "ask_user"]) assert.ok(await page.$(`#tool-${tool}`), `the demo's ${tool}`);
  const [cookie] = await page.cookies();
  assert.deepEqual(
    { name: cookie?.name, path: cookie?.path, httpOnly: cookie?.httpOnly, sameSite: cookie?.sameSite, secure: cookie?.secure },
    { name: "hubmcp-session", path: weberPrefix, httpOnly: true, sameSite: "Lax", secure: false },
  );

  await page.click("#tool-add > summary");
  await page.type("#tool-add input[name=a]", "4");
  await page.type("#tool-add input[name=b]", "5");
  await page.click("#tool-add button.primary");
  await page.waitForFunction(() => (document.querySelector("#tool-add .run-status")?.textContent ?? "").startsWith("Done"), { polling: "mutation" });
  assert.equal(await page.$eval("#tool-add .result pre", (el) => el.textContent), "9");
  assert.deepEqual(problems, []);

  // The same link in another browser (its history, a copied address): refused, with a page that says why.
  const other = await browser.createBrowserContext();
  const again = await (await other.newPage()).goto(link);
  assert.equal(again?.status(), 410);
  assert.match(await again!.text(), /already used/);
  assert.deepEqual(await other.cookies(), []);
  await other.close();

  const ticket = new URL(link).searchParams.get("ticket")!;
  assert.equal(h.logs.filter((l) => l.includes(ticket) || l.includes(ticket.split(".")[3]!)).length, 0, "the ticket is never logged");
  assert.ok(h.logs.some((l) => l.includes('"path":"/console"') && l.includes('"status":303') && l.includes('"user":"alice","tool":"mcpdemo"')));
});

test("a console link opens only its own person's session, once, within its minute", { timeout: 120_000 }, async (t) => {
  const publicUrl = "https://hub.example.org/gw";
  const h = await startHarness(
    t,
    { tools: { demo: { groups: ["users", "staff"], revisions: { default: { app: "fixtures/demo/app.ts" } } } }, limits: { lookupCacheSeconds: 0 } },
    { ...CHILD, publicUrl },
  );
  const alice = String((await bootstrap(h, "demo", h.tokens.alice)).console_url);
  const carol = String((await bootstrap(h, "demo", h.tokens.carol)).console_url);
  assert.ok(alice.startsWith(`${publicUrl}/console?ticket=`));
  const aliceSession = await bindingOf(h, "alice\ndemo\ndefault");
  const carolSession = await bindingOf(h, "carol\ndemo\ndefault");
  const key = await h.store.secret("session-cookie-key");
  const link = (ticket: string): string => `${publicUrl}/console?ticket=${ticket}`;

  // Someone else's: carol's ticket pointed at alice's session, or signed for carol on alice's session.
  const carolTicket = new URL(carol).searchParams.get("ticket")!;
  await refusal(await open(h, link(carolTicket.replace(carolSession.instance, aliceSession.instance))), 400, /not valid/);
  await refusal(await open(h, link(mintConsoleTicket(key, { ...aliceSession, user: "carol" }))), 400, /not valid/);
  await refusal(await open(h, link(mintConsoleTicket(key, { ...aliceSession, revision: "dev" }))), 400, /not valid/);
  // Tampered, expired, malformed, for no running session, not a GET.
  await refusal(
    await open(
      h,
      alice.replace(/.$/, (c) => (c === "A" ? "B" : "A")),
    ),
    400,
    /not valid/,
  );
  await refusal(await open(h, link(mintConsoleTicket(key, aliceSession, Date.now() - CONSOLE_TICKET_LIFETIME_MS - 1000))), 410, /expired/);
  await refusal(await open(h, `${publicUrl}/console`), 400, /not valid/);
  await refusal(await open(h, link(carolTicket.replace(/\.[0-9a-z]+\./, ".0a."))), 400, /not valid/);
  await refusal(await open(h, link(mintConsoleTicket(key, { ...aliceSession, instance: "f".repeat(32) }))), 404, /no longer running/);
  const posted = await open(h, alice, { method: "POST" });
  assert.equal(posted.headers.get("allow"), "GET");
  await refusal(posted, 405, /GET/);

  // Opened twice at once (two tabs, two replicas): exactly one gets the cookie.
  const [first, second] = await Promise.all([open(h, alice), open(h, alice)]);
  const statuses = [first.status, second.status].sort();
  assert.deepEqual(statuses, [303, 410]);
  const opened = first.status === 303 ? first : second;
  await (first.status === 303 ? second : first).text();
  assert.equal(opened.headers.get("location"), `/gw${aliceSession.weberPrefix}/`, "a path on this origin, never a URL");
  assert.equal(opened.headers.get("referrer-policy"), "no-referrer");
  assert.equal(opened.headers.get("cache-control"), "no-store");
  const setCookie = opened.headers.get("set-cookie")!;
  assert.match(
    setCookie,
    new RegExp(`^hubmcp-session=${aliceSession.instance}%3A[^;]+; Path=/gw${aliceSession.weberPrefix}; Max-Age=28800; HttpOnly; SameSite=Lax; Secure$`),
  );
  await refusal(await open(h, alice), 410, /already used/);

  // The cookie is alice's on alice's session, and worthless on carol's.
  const cookie = setCookie.split(";")[0]!;
  const list = async (session: TicketBinding): Promise<number> => {
    const res = await post(`${h.base}${session.weberPrefix}/mcp`, undefined, rpc("tools/list"), { cookie });
    await res.arrayBuffer();
    return res.status;
  };
  assert.equal(await list(aliceSession), 200);
  assert.equal(await list(carolSession), 401);

  // The account as it is now decides, before the ticket is spent.
  const account = (await h.store.get<Record<string, unknown>>("accounts", "carol"))!;
  await h.store.put("accounts", "carol", { ...account, groups: [] });
  await refusal(await open(h, carol), 403, /no longer use this tool/);
  await h.store.delete("accounts", "carol");
  await refusal(await open(h, carol), 401, /no longer exists/);
  await h.store.put("accounts", "carol", account);
  assert.equal((await open(h, carol)).status, 303, "refusals did not spend carol's link");

  // A store failing in a way the gateway does not know: its generic 500, the ticket in no log line.
  const create = h.store.create;
  h.store.create = () => Promise.reject(new Error("disk on fire"));
  t.after(() => (h.store.create = create));
  const ticket = mintConsoleTicket(key, aliceSession);
  const failed = await open(h, link(ticket));
  assert.deepEqual([failed.status, (await json(failed)).error], [500, "internal_error"]);
  assert.equal(h.logs.filter((l) => l.includes(ticket.split(".")[3]!)).length, 0);
});

test("revisions without a session proxy path say there is no console through the gateway", { timeout: 60_000 }, async (t) => {
  const shared = { app: "fixtures/demo/app.ts", isolation: "shared" };
  const h = await startHarness(t, { tools: { calc: { revisions: { default: fake() } }, demo: { revisions: { default: shared } } } }, CHILD);
  for (const tool of ["calc", "demo"]) {
    const info = await bootstrap(h, tool, h.tokens.alice);
    assert.equal(info.console_url, null, tool);
    assert.match(String(info.console_unavailable), /no console through the gateway: only app revisions with process isolation/);
  }
});

test("spent tickets are remembered until they could no longer be opened anyway, with room for replicas' clocks", async () => {
  const store = new MemoryRecordStore();
  let now = 1_000_000;
  const uses = new ConsoleLinkUses(store, () => now);
  const expires = now + CONSOLE_TICKET_LIFETIME_MS;
  assert.equal(await uses.first("nonce-1", expires), true);
  assert.equal(await uses.first("nonce-1", expires), false);
  await store.put(CONSOLE_LINK_USES, "unreadable", {});
  now = expires + 5 * 60_000 - 1;
  assert.equal(await uses.sweep(), 1, "only the record that says no expiry");
  assert.equal(await uses.first("nonce-1", expires), false);
  now += 1;
  assert.equal(await uses.sweep(), 1);
  assert.deepEqual(await store.list(CONSOLE_LINK_USES), []);
});
