// `GET /`: what a person who opens the gateway's address needs: where to connect (the one
// connector `{publicUrl}/mcp`, each tool's own URLs) and, when the request carries a
// credential for the hub, the tools that person may use. JSON for `Accept: application/json`,
// a small page otherwise. Nothing secret and nobody else's data: without a credential it
// names no tool, since a tool's name can say who it is for.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { GatewayConfig } from "../config/gateway-config.ts";
import type { Principal } from "../contracts/interfaces.ts";
import { toolsFor } from "../hub-connector/namespace.ts";
import { sendHtml } from "../oauth/http-io.ts";
import { escapeHtml } from "../oauth/pages.ts";
import { sendJson } from "../contracts/respond.ts";

interface Landing {
  connect: string;
  signIn: string;
  user?: string;
  tools?: Array<{ name: string; mcp: string; sse: string }>;
}

function landing(publicUrl: string, config: GatewayConfig, principal: Principal | null): Landing {
  const base: Landing = {
    connect: `${publicUrl}/mcp`,
    signIn: "Add this URL to an MCP client (Claude, ChatGPT, VS Code, MCP Inspector): it signs you in, or send an API token as Authorization: Bearer",
  };
  if (!principal) return base;
  const tools = toolsFor(config, principal).map((name) => ({ name, mcp: `${publicUrl}/api/mcp/${name}/mcp`, sse: `${publicUrl}/api/mcp/${name}/sse` }));
  return { ...base, user: principal.user, tools };
}

function html(l: Landing): string {
  const e = escapeHtml;
  const tools =
    l.tools === undefined
      ? "<p>Sign in through an MCP client to see the tools you may use.</p>"
      : l.tools.length === 0
        ? `<p>${e(l.user!)} may use no tool here yet.</p>`
        : `<p>Tools ${e(l.user!)} may use, each also at its own URL:</p><ul>${l.tools.map((t) => `<li><b>${e(t.name)}</b>: <code>${e(t.mcp)}</code></li>`).join("")}</ul>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>MCP hub gateway</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}code{overflow-wrap:anywhere}</style></head>
<body><h1>MCP hub gateway</h1><p>Connect an MCP client to <code>${e(l.connect)}</code> for every tool you may use.</p>
<p>${e(l.signIn)}.</p>${tools}</body></html>
`;
}

/** Answers `GET /` for `principal` (null: the request carried no credential). */
export function sendLanding(req: IncomingMessage, res: ServerResponse, publicUrl: string, config: GatewayConfig, principal: Principal | null): void {
  const page = landing(publicUrl, config, principal);
  const accept = String(req.headers.accept); // "undefined" when absent: the page
  // A client that names JSON gets JSON; browsers (text/html) and anything else the page.
  if (/application\/json/i.test(accept) && !/text\/html/i.test(accept)) return sendJson(res, 200, page);
  sendHtml(res, 200, html(page));
}
