// Shared setup of the OAuth specs: the authorization server behind a real node:http server on
// a loopback port, an in-memory account directory, an injectable clock, and a browser-less
// walk through the login and consent forms.
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { TestContext } from "node:test";
import type { AccountDirectory, RecordStore } from "../../../lib/gateway/contracts/interfaces.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";
import { OAuthServer } from "../../../lib/gateway/oauth/server.ts";
import type { OAuthServerOptions } from "../../../lib/gateway/oauth/options.ts";

export class TestAccounts implements AccountDirectory {
  readonly users = new Map<string, { password: string; groups: string[] }>([["ada", { password: "correct horse", groups: ["staff"] }]]);
  async verifyPassword(user: string, password: string): Promise<{ user: string; groups: readonly string[] } | null> {
    const account = this.users.get(user);
    return account && account.password === password ? { user, groups: account.groups } : null;
  }
  async groupsOf(user: string): Promise<readonly string[] | null> {
    return this.users.get(user)?.groups ?? null;
  }
}

export interface Harness {
  base: string;
  server: OAuthServer;
  store: RecordStore;
  accounts: TestAccounts;
  clock: { now: number };
}

export async function listen(server: Server, t: TestContext): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  server.unref();
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  return `http://127.0.0.1:${address.port}`;
}

export async function startAuthorizationServer(t: TestContext, options: Partial<OAuthServerOptions> = {}): Promise<Harness> {
  const clock = { now: Date.UTC(2026, 0, 1) };
  const store = options.store ?? new MemoryRecordStore();
  const accounts = (options.accounts as TestAccounts | undefined) ?? new TestAccounts();
  let as: OAuthServer | undefined;
  const http = createServer((req, res) => {
    void as!.handle(req, res).then((handled) => {
      if (!handled) res.writeHead(404, { "Content-Type": "text/plain" }).end("not ours");
    });
  });
  http.keepAliveTimeout = 100;
  const base = await listen(http, t);
  as = new OAuthServer({ publicUrl: base, store, accounts, now: () => clock.now, ...options });
  return { base, server: as, store, accounts, clock };
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export async function register(base: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/authorize/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

export async function registerPublic(base: string, redirect = "http://127.0.0.1:5555/callback", name = "Spec client"): Promise<string> {
  const res = await register(base, { client_name: name, redirect_uris: [redirect], token_endpoint_auth_method: "none" });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status}`);
  return ((await res.json()) as { client_id: string }).client_id;
}

export function hiddenField(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!match) throw new Error(`no hidden field ${name}`);
  return match[1]!.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
}

function cookieOf(res: Response): string | undefined {
  const set = res.headers.getSetCookie();
  return set.length > 0 ? set[0]!.split(";")[0] : undefined;
}

export function authorizeUrl(base: string, params: Record<string, string | undefined>): string {
  const url = new URL(`${base}/developer/oauth/authorize`);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  return url.href;
}

export interface SignIn {
  clientId: string;
  redirectUri?: string;
  challenge: string;
  resource?: string;
  state?: string;
  user?: string;
  password?: string;
  decision?: "approve" | "deny";
}

/** Walks authorize → login → consent as a browser would and answers the final redirect. */
export async function signIn(base: string, flow: SignIn): Promise<URL> {
  const redirectUri = flow.redirectUri ?? "http://127.0.0.1:5555/callback";
  const first = await fetch(
    authorizeUrl(base, {
      response_type: "code",
      client_id: flow.clientId,
      redirect_uri: redirectUri,
      code_challenge: flow.challenge,
      code_challenge_method: "S256",
      state: flow.state ?? "st4te",
      resource: flow.resource,
    }),
    { redirect: "manual" },
  );
  if (first.status !== 200) throw new Error(`authorize answered ${first.status}`);
  const loginHtml = await first.text();
  let cookie = cookieOf(first)!;
  const request = hiddenField(loginHtml, "request");
  const login = await fetch(`${base}/developer/oauth/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
    body: new URLSearchParams({ request, csrf: hiddenField(loginHtml, "csrf"), username: flow.user ?? "ada", password: flow.password ?? "correct horse" }),
  });
  await login.arrayBuffer();
  if (login.status !== 303) throw new Error(`login answered ${login.status}`);
  cookie = cookieOf(login)!;
  const consent = await fetch(new URL(login.headers.get("location")!, `${base}/developer/oauth/login`), { headers: { Cookie: cookie } });
  const consentHtml = await consent.text();
  const decided = await fetch(`${base}/developer/oauth/consent`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
    body: new URLSearchParams({ request, csrf: hiddenField(consentHtml, "csrf"), decision: flow.decision ?? "approve" }),
  });
  await decided.arrayBuffer();
  if (decided.status !== 303) throw new Error(`consent answered ${decided.status}`);
  return new URL(decided.headers.get("location")!);
}

export async function token(base: string, params: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/developer/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(params),
  });
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: string;
}

/** Registration, sign-in and code exchange in one step. */
export async function obtainTokens(base: string, resource?: string): Promise<{ clientId: string; tokens: Tokens }> {
  const clientId = await registerPublic(base);
  const { verifier, challenge } = pkcePair();
  const back = await signIn(base, { clientId, challenge, ...(resource ? { resource } : {}) });
  const res = await token(base, {
    grant_type: "authorization_code",
    client_id: clientId,
    code: back.searchParams.get("code")!,
    redirect_uri: "http://127.0.0.1:5555/callback",
    code_verifier: verifier,
  });
  if (res.status !== 200) throw new Error(`token answered ${res.status}`);
  return { clientId, tokens: (await res.json()) as Tokens };
}
