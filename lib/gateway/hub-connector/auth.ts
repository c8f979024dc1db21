// Who calls /mcp. The same rules as a tool route (../identity/auth.ts), for the resource
// `{publicUrl}/mcp`: a token bound to one tool's URL is refused here, a hub-wide token or
// one issued for `{publicUrl}/mcp` is accepted. Groups are checked per tool, later: a
// person with no usable tool still connects and lists nothing.
import type { IncomingMessage } from "node:http";
import { bearer, verifyInOrder } from "../identity/auth.ts";
import type { Principal, TokenVerifier } from "../contracts/interfaces.ts";
import { GatewayError } from "../contracts/respond.ts";
import { andThen } from "../../util/maybe-async.ts";

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

/** The caller of /mcp, or a 401 (thrown, or the promise's rejection when a verifier had to look); as for a tool's routes, at once for a bearer verified lately. */
export function authorizeHub(req: IncomingMessage, verifiers: readonly TokenVerifier[], publicUrl: string): Principal | Promise<Principal> {
  const token = bearer(req);
  if (token === null) throw unauthorized(publicUrl, false);
  const resource = hubResource(publicUrl);
  const admit = (principal: Principal | null): Principal => {
    if (!principal || (principal.audience !== undefined && principal.audience !== resource)) throw unauthorized(publicUrl, true);
    return principal;
  };
  return andThen(verifyInOrder(verifiers, token, resource), admit);
}
