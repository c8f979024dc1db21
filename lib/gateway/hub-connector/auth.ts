// Who calls /mcp. The same rules as a tool route (../auth.ts), for the resource
// `{publicUrl}/mcp`: a token bound to one tool's URL is refused here, a hub-wide token or
// one issued for `{publicUrl}/mcp` is accepted. Groups are checked per tool, later: a
// person with no usable tool still connects and lists nothing.
import type { IncomingMessage } from "node:http";
import { bearer } from "../auth.ts";
import type { Principal, TokenVerifier } from "../contracts.ts";
import { GatewayError } from "../respond.ts";

export const hubResource = (publicUrl: string): string => `${publicUrl}/mcp`;
export const hubResourceMetadataUrl = (publicUrl: string): string => `${publicUrl}/.well-known/oauth-protected-resource/mcp`;

/** RFC 9728 protected-resource metadata for `{publicUrl}/mcp`. */
export function hubResourceMetadata(publicUrl: string): Record<string, unknown> {
  return {
    resource: hubResource(publicUrl),
    authorization_servers: [`${publicUrl}/authorize`],
    bearer_methods_supported: ["header"],
    resource_name: "All tools of this hub",
  };
}

function unauthorized(publicUrl: string, invalid: boolean): GatewayError {
  const metadata = hubResourceMetadataUrl(publicUrl);
  const challenge = invalid ? `Bearer error="invalid_token", resource_metadata="${metadata}"` : `Bearer resource_metadata="${metadata}"`;
  return new GatewayError("unauthorized", invalid ? "The bearer token is not valid for this hub's /mcp" : "A bearer token is required", {
    "www-authenticate": challenge,
  });
}

export async function authorizeHub(req: IncomingMessage, verifiers: readonly TokenVerifier[], publicUrl: string): Promise<Principal> {
  const token = bearer(req);
  if (token === null) throw unauthorized(publicUrl, false);
  const resource = hubResource(publicUrl);
  for (const verifier of verifiers) {
    let principal: Principal | null;
    try {
      principal = await verifier.verify(token, resource);
    } catch {
      principal = null;
    }
    if (!principal) continue;
    if (principal.audience !== undefined && principal.audience !== resource) break;
    return principal;
  }
  throw unauthorized(publicUrl, true);
}
