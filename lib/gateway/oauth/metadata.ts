// Authorization server metadata (RFC 8414). Served at the issuer's own well-known path and at
// the RFC 8414 location that the official SDK and the conformance suite derive from the issuer.
import type { OAuthConfig } from "./options.ts";

export const AS_PATHS = {
  metadata: "/authorize/.well-known/oauth-authorization-server",
  metadataRfc8414: "/.well-known/oauth-authorization-server/authorize",
  /** Clients of the 2025-03-26 revision skip resource metadata and look at the origin's root. */
  metadataLegacy: "/.well-known/oauth-authorization-server",
  register: "/authorize/register",
  authorize: "/developer/oauth/authorize",
  token: "/developer/oauth/token",
  revoke: "/developer/oauth/revoke",
  login: "/developer/oauth/login",
  consent: "/developer/oauth/consent",
  /** A person's own page (tokens, connected apps, tool sessions), under the sign-in cookie's path; `{publicUrl}/account` leads here. */
  account: "/developer/oauth/account",
  /** The operator's page, on the same sign-in as the account page; `{publicUrl}/admin` leads here. */
  admin: "/developer/oauth/admin",
  /** Sign-in at the hub's OpenID provider: the way out, and the way back. */
  upstream: "/developer/oauth/upstream",
  upstreamCallback: "/developer/oauth/upstream/callback",
} as const;

export const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

export function authorizationServerMetadata(config: OAuthConfig): Record<string, unknown> {
  const base = config.publicUrl;
  return {
    issuer: config.issuer,
    authorization_endpoint: `${base}${AS_PATHS.authorize}`,
    token_endpoint: `${base}${AS_PATHS.token}`,
    registration_endpoint: `${base}${AS_PATHS.register}`,
    revocation_endpoint: `${base}${AS_PATHS.revoke}`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    // ID-JAG (an identity assertion as a jwt-bearer grant) only when some IdP is trusted for it.
    grant_types_supported: ["authorization_code", "refresh_token", ...(config.assertionIssuers.length > 0 ? [JWT_BEARER] : [])],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
    revocation_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}
