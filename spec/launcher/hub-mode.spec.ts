import { test } from "node:test";
import assert from "node:assert/strict";
import { hubPorts } from "../../lib/launcher/hub-mode.ts";

test("hub ports are 8000 and 8001 unless HUBMCP_PROXY_PORT / HUBMCP_SERVER_PORT say otherwise", () => {
  assert.deepEqual(hubPorts({}), { proxyPort: 8000, serverPort: 8001 });
  assert.deepEqual(hubPorts({ HUBMCP_PROXY_PORT: "0", HUBMCP_SERVER_PORT: "9001" }), { proxyPort: 0, serverPort: 9001 });
  assert.deepEqual(hubPorts({ HUBMCP_PROXY_PORT: "" }), { proxyPort: 8000, serverPort: 8001 });
  assert.equal(hubPorts({ HUBMCP_PROXY_PORT: "x" }), "HUBMCP_PROXY_PORT must be a port number (0-65535)");
  assert.equal(hubPorts({ HUBMCP_SERVER_PORT: "99999" }), "HUBMCP_SERVER_PORT must be a port number (0-65535)");
});
