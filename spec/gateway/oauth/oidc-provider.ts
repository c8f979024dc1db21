// A real OpenID provider for the identity specs: `oidc-provider` (the certified Node
// implementation) on a loopback port, with its own RSA keys, people and a `groups` claim, its
// development login form (any name signs in) and consent form. The port is taken first, so the
// hub can name the issuer before the provider, which needs the hub's redirect, is made.
import { generateKeyPairSync, type JsonWebKey, type KeyObject } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { TestContext } from "node:test";
import Provider from "oidc-provider";
import { listen } from "./harness.ts";

export const CLIENT_ID = "hubmcp";
export const CLIENT_SECRET = "spec-client-secret-0123456789abcdef";

export interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly jwk: JsonWebKey & { kid: string };
}

export function signingKey(kid: string): SigningKey {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { kid, privateKey, jwk: { ...privateKey.export({ format: "jwk" }), kid, use: "sig", alg: "RS256" } };
}

export interface SpecProvider {
  readonly issuer: string;
  /** Each person's groups at the provider; change them and the next sign-in carries the change. */
  readonly groups: Map<string, string[]>;
  /** The keys published, newest (the signing one) first. */
  keys: SigningKey[];
  /** Makes the provider for this redirect (the hub's callback), signing with `keys[0]`. */
  configure(redirectUri: string): void;
  /** A new signing key first, the old one still published: a rotation as providers do it. */
  rotate(kid: string): SigningKey;
  /** Answers every request with a dropped connection, as an unreachable provider would. */
  down: boolean;
  /** Requests to the JWKS so far. */
  jwksFetches: number;
}

export async function startProvider(t: TestContext): Promise<SpecProvider> {
  let current: Provider | undefined;
  let redirect = "";
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (spec.down || !current) return void res.destroy();
    if ((req.url ?? "").startsWith("/jwks")) spec.jwksFetches++;
    current.callback()(req, res);
  });
  server.keepAliveTimeout = 100;
  const issuer = await listen(server, t);
  const build = (): void => {
    current = new Provider(issuer, {
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          redirect_uris: [redirect],
          response_types: ["code"],
          grant_types: ["authorization_code"],
        },
      ],
      jwks: { keys: spec.keys.map((k) => k.jwk) },
      findAccount: (_ctx, sub) => ({
        accountId: sub,
        claims: () => ({ sub, preferred_username: sub, groups: spec.groups.get(sub) ?? [] }),
      }),
      claims: { openid: ["sub"], profile: ["preferred_username"], groups: ["groups"] },
      // The name and groups in the ID token itself, as Keycloak and most hub providers send them.
      conformIdTokenClaims: false,
      pkce: { required: () => true },
      cookies: { keys: ["spec-provider-cookie-key-0123456789"] },
    });
  };
  const spec: SpecProvider = {
    issuer,
    groups: new Map(),
    keys: [signingKey("key-1")],
    down: false,
    jwksFetches: 0,
    configure(redirectUri) {
      redirect = redirectUri;
      build();
    },
    rotate(kid) {
      const key = signingKey(kid);
      spec.keys = [key, ...spec.keys];
      build();
      return key;
    },
  };
  return spec;
}
