import { test } from "node:test";
import assert from "node:assert/strict";
import { detectHub, hubEnv, parseResources } from "../../lib/launcher/hub.ts";

const RESOURCES = `sessionid 12345
hub_url "https://nanohub.org"
filexfer_port 11042
filexfer_cookie a1b2c3
# a comment
`;

test("hubEnv needs a session and a session directory, under either spelling", () => {
  assert.equal(hubEnv({}), null);
  assert.equal(hubEnv({ SESSION: "1" }), null);
  assert.equal(hubEnv({ SESSION: "", SESSIONDIR: "/d" }), null);
  assert.deepEqual(hubEnv({ SESSION: "1", SESSIONDIR: "/d" }), { session: "1", sessionDir: "/d" });
  assert.deepEqual(hubEnv({ SESSION_ID: "2", SESSION_DIR: "/e" }), { session: "2", sessionDir: "/e" });
});

test("parseResources reads key value lines and strips quotes", () => {
  const r = parseResources(`${RESOURCES}\r\nquoted 'single'\nempty\n`);
  assert.equal(r.get("hub_url"), "https://nanohub.org");
  assert.equal(r.get("filexfer_port"), "11042");
  assert.equal(r.get("quoted"), "single");
  assert.equal(r.has("empty"), false);
  assert.equal(r.has("#"), false);
});

test("a hub session yields the weber path and the proxy URL", () => {
  assert.deepEqual(detectHub({ SESSION: "12345", SESSIONDIR: "/s" }, RESOURCES), {
    kind: "hub",
    hub: {
      session: "12345",
      sessionDir: "/s",
      pathPrefix: "/weber/12345/a1b2c3/42",
      proxyUrl: "https://proxy.nanohub.org/weber/12345/a1b2c3/42/",
    },
  });
  const bare = detectHub({ SESSION: "7", SESSIONDIR: "/s" }, "hub_url hub.example.org:8080/x\nfilexfer_port 9000\nfilexfer_cookie c\n");
  assert.equal(bare.kind === "hub" && bare.hub.proxyUrl, "https://proxy.hub.example.org/weber/7/c/0/");
});

test("no session is local; unusable facts fall back to local with a warning", () => {
  assert.deepEqual(detectHub({}, null), { kind: "local" });
  const env = { SESSION: "1", SESSIONDIR: "/s" };
  const cases: [string | null, RegExp][] = [
    [null, /not readable/],
    ["hub_url https://h.org\n", /lack filexfer_port, filexfer_cookie/],
    ["hub_url https://h.org\nfilexfer_port x1\nfilexfer_cookie c\n", /not an integer/],
    ["hub_url ://\nfilexfer_port 1\nfilexfer_cookie c\n", /no host/],
  ];
  for (const [text, warning] of cases) {
    const d = detectHub(env, text);
    assert.equal(d.kind, "fallback");
    assert.match(d.kind === "fallback" ? d.warning : "", warning);
  }
});
