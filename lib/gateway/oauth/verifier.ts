// Checks the access tokens this server issued. The signature and expiry are checked without
// I/O; the grant is then read on every request, so a revocation takes effect at once in every
// process on the data dir, and the account's groups are read as they are now.
import type { Principal, TokenVerifier } from "../contracts.ts";
import { readAccessToken } from "./jws.ts";
import { normalResource, type Grants } from "./grants.ts";
import type { OAuthConfig } from "./options.ts";

export class OAuthTokenVerifier implements TokenVerifier {
  readonly #config: OAuthConfig;
  readonly #grants: Grants;

  constructor(config: OAuthConfig, grants: Grants) {
    this.#config = config;
    this.#grants = grants;
  }

  async verify(token: string, resource: string): Promise<Principal | null> {
    try {
      const claims = readAccessToken(token, await this.#grants.signingKey());
      if (!claims || claims.iss !== this.#config.issuer) return null;
      if (claims.exp * 1000 <= this.#config.now()) return null;
      const hubWide = normalResource(claims.aud) === this.#config.publicUrl;
      if (!hubWide && !audienceCovers(this.#config.publicUrl, claims.aud, resource)) return null;
      const grant = await this.#grants.activeGrant(claims.gid);
      if (!grant || grant.user !== claims.sub) return null;
      const groups = await this.#config.accounts.groupsOf(claims.sub);
      if (!groups) return null;
      return { user: claims.sub, groups, kind: "oauth", ...(hubWide ? {} : { audience: claims.aud }) };
    } catch {
      return null;
    }
  }
}

/**
 * Whether a token for `audience` may be used on `resource`. A tool's resource is its MCP
 * endpoint, `{hub}/api/mcp/{tool}/mcp`; the token serves every path of that same tool.
 */
export function audienceCovers(publicUrl: string, audience: string, resource: string): boolean {
  if (typeof resource !== "string") return false;
  const a = normalResource(audience);
  const r = normalResource(resource);
  if (a === r) return true;
  const toolA = toolOf(publicUrl, a);
  return toolA !== undefined && toolA === toolOf(publicUrl, r);
}

function toolOf(publicUrl: string, url: string): string | undefined {
  const prefix = `${publicUrl}/api/mcp/`;
  if (!url.startsWith(prefix)) return undefined;
  const tool = url.slice(prefix.length).split(/[/?#]/, 1)[0];
  return tool ? tool : undefined;
}
