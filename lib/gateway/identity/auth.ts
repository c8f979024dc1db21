// Who is calling, and may they use this tool. The one place that decides: verifiers are
// asked in order (first answer wins), an audience-bound token must name the tool's own
// resource, and the tool's groups must meet the caller's.
import type { IncomingMessage } from "node:http";
import type { ToolSpec } from "../config/gateway-config.ts";
import type { Principal, TokenVerifier } from "../contracts/interfaces.ts";
import { GatewayError } from "../contracts/respond.ts";
import type { ToolEndpoint } from "../contracts/routes.ts";
import { isStoreUnavailable } from "../contracts/store-errors.ts";
import { andThen } from "../../util/maybe-async.ts";

/** The tool's MCP URL: the OAuth resource, the audience of tokens issued for it. */
export function toolResource(publicUrl: string, tool: string): string {
  return `${publicUrl}/api/mcp/${tool}/mcp`;
}

export function resourceMetadataUrl(publicUrl: string, tool: string, endpoint: ToolEndpoint = "mcp"): string {
  return `${publicUrl}/api/mcp/${tool}/${endpoint}/.well-known/oauth-protected-resource`;
}

/**
 * RFC 9728 protected-resource metadata for one of a tool's URLs. Clients check that the URL
 * they connect to lies under `resource` (the SDK's checkResourceAllowed), so `…/sse` gets
 * its own; the authorization server files either under the tool's one canonical resource.
 */
export function resourceMetadata(publicUrl: string, tool: string, endpoint: ToolEndpoint = "mcp"): Record<string, unknown> {
  return {
    resource: `${publicUrl}/api/mcp/${tool}/${endpoint}`,
    authorization_servers: [`${publicUrl}/authorize`],
    bearer_methods_supported: ["header"],
    resource_name: tool,
  };
}

export function bearer(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  if (typeof header !== "string" || header.length > 4096) return null;
  const m = /^Bearer[ ]+([\x21-\x7e]+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}

function unauthorized(publicUrl: string, tool: string, invalid: boolean, endpoint: ToolEndpoint): GatewayError {
  const metadata = resourceMetadataUrl(publicUrl, tool, endpoint);
  const challenge = invalid ? `Bearer error="invalid_token", resource_metadata="${metadata}"` : `Bearer resource_metadata="${metadata}"`;
  return new GatewayError("unauthorized", invalid ? "The bearer token is not valid for this tool" : "A bearer token is required", {
    "www-authenticate": challenge,
  });
}

/**
 * The first verifier's answer, in order, or null. Answers at once while each verifier asked
 * can tell without I/O (verifyNow), so a known bearer costs the request no promise.
 */
export function verifyInOrder(verifiers: readonly TokenVerifier[], token: string, resource: string): Principal | null | Promise<Principal | null> {
  for (let i = 0; i < verifiers.length; i++) {
    const now = verifiers[i]!.verifyNow?.(token, resource);
    if (now === undefined) return verifyFrom(verifiers, i, token, resource);
    if (now) return now;
  }
  return null;
}

async function verifyFrom(verifiers: readonly TokenVerifier[], first: number, token: string, resource: string): Promise<Principal | null> {
  for (const verifier of verifiers.slice(first)) {
    let principal: Principal | null;
    try {
      principal = await verifier.verify(token, resource);
    } catch (err) {
      // An unreachable store says nothing about the token: not a 401 that makes clients drop it.
      if (isStoreUnavailable(err)) throw err;
      principal = null;
    }
    if (principal) return principal;
  }
  return null;
}

/** The caller of a tool route, or a 401/403 GatewayError (thrown, or the promise's rejection when a verifier had to look). */
export function authorize(
  req: IncomingMessage,
  verifiers: readonly TokenVerifier[],
  publicUrl: string,
  tool: string,
  spec: ToolSpec,
  endpoint: ToolEndpoint = "mcp",
): Principal | Promise<Principal> {
  const token = bearer(req);
  if (token === null) throw unauthorized(publicUrl, tool, false, endpoint);
  const resource = toolResource(publicUrl, tool);
  const admit = (principal: Principal | null): Principal => {
    if (!principal || (principal.audience !== undefined && principal.audience !== resource)) throw unauthorized(publicUrl, tool, true, endpoint);
    if (spec.groups.length > 0 && !spec.groups.some((g) => principal.groups.includes(g))) {
      throw new GatewayError("forbidden", `This tool is open to members of: ${spec.groups.join(", ")}`, {}, { required_groups: spec.groups });
    }
    return principal;
  };
  return andThen(verifyInOrder(verifiers, token, resource), admit);
}
