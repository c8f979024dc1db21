// The per-session secret of a tool session a gateway starts: the server answers only
// requests that carry it (the `hubmcp-secret` cookie the gateway adds when forwarding), so
// another account on the host, or on the cluster network, cannot drive the session by
// finding its port. The secret arrives in a file readable only by this process's account
// (never argv, where `ps` shows it); the file is removed once read and its path dropped
// from the environment, so neither the tools' own children nor /proc/<pid>/environ tell it.
//
// The server also proves to its gateway that it is the session's server: a request without
// the cookie but with a challenge header gets, beside the usual 401, an HMAC of the challenge
// and the address the request reached, keyed by the secret. A gateway that learns an address
// from a file the session's account could write (a Slurm job's output) forwards there only
// after this proof, so no other service (its own port, a database) can be named in its place.
import { hmac, safeEqual } from "../util/secrets.ts";
import { takeCookie } from "./cookies.ts";
import { readFileSync, unlinkSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";

export const SECRET_FILE_ENV = "HUBMCP_SECRET_FILE";
export const SECRET_COOKIE = "hubmcp-secret";
const MIN_LENGTH = 32;
export const CHALLENGE_HEADER = "x-hubmcp-challenge";
export const PROOF_HEADER = "x-hubmcp-proof";
const CHALLENGE = /^[A-Za-z0-9_-]{22,128}$/;

/** The answer to `challenge` reaching `address` (`host:port`, the host without brackets). */
export function sessionProof(secret: string, challenge: string, address: string): string {
  return hmac(secret, `hubmcp-session-proof\n${challenge}\n${address}`);
}

/** The secret named by HUBMCP_SECRET_FILE (read, removed, unset); null when none; a message when unusable. */
export function takeSessionSecret(env: NodeJS.ProcessEnv): { secret: string } | { error: string } | null {
  const file = env[SECRET_FILE_ENV];
  if (file === undefined || file === "") return null;
  delete env[SECRET_FILE_ENV];
  delete process.env[SECRET_FILE_ENV];
  let secret: string;
  try {
    secret = readFileSync(file, "utf8").trim();
  } catch {
    return { error: `${SECRET_FILE_ENV} names a file that cannot be read` };
  }
  try {
    unlinkSync(file);
  } catch {
    // a read-only folder: the file stays, readable by this account only
  }
  if (secret.length < MIN_LENGTH || !/^[\x21-\x7e]+$/.test(secret))
    return { error: `the secret in ${SECRET_FILE_ENV} is not ${MIN_LENGTH} or more printable characters` };
  return { secret };
}

/** Takes the secret cookie out of the request (the app never sees it) and answers whether it matched. */
function carries(req: IncomingMessage, secret: string): boolean {
  const { value: found, rest } = takeCookie(req.headers.cookie, SECRET_COOKIE);
  if (rest !== undefined) req.headers.cookie = rest;
  else delete req.headers.cookie;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() === "cookie") req.rawHeaders[i + 1] = req.headers.cookie ?? "";
  }
  return found !== undefined && safeEqual(found, secret);
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

function refuse(req: IncomingMessage, res: ServerResponse, secret: string): void {
  const body = '{"error":"unauthorized","message":"This tool session answers its gateway only"}';
  const challenge = req.headers[CHALLENGE_HEADER];
  const proof: Record<string, string> = {};
  if (typeof challenge === "string" && CHALLENGE.test(challenge)) {
    // The address as the connection reached it, an IPv4 one as IPv4 even on a dual-stack socket.
    const host = (req.socket.localAddress ?? "").replace(/^::ffff:(?=\d+\.)/, "");
    proof[PROOF_HEADER] = sessionProof(secret, challenge, `${host}:${req.socket.localPort}`);
  }
  res.writeHead(401, { "content-type": "application/json", "content-length": Buffer.byteLength(body), connection: "close", ...proof });
  res.end(body);
}

/** From now on `server` passes to its handlers only requests carrying `secret`; others get a 401. */
export function requireSecret(server: Server, secret: string): void {
  // A request passed on from checkContinue to request (Node's own way) is checked once.
  const passed = new WeakSet<IncomingMessage>();
  const allowed = (req: IncomingMessage): boolean => passed.has(req) || (carries(req, secret) && !!passed.add(req));
  for (const event of ["request", "checkContinue", "checkExpectation"] as const) {
    const listeners = server.listeners(event) as Listener[];
    if (listeners.length === 0) continue;
    server.removeAllListeners(event);
    server.on(event, (req: IncomingMessage, res: ServerResponse) => {
      if (!allowed(req)) return refuse(req, res, secret);
      for (const listener of listeners) listener.call(server, req, res);
    });
  }
  const upgrades = server.listeners("upgrade") as Array<(req: IncomingMessage, socket: Duplex, head: Buffer) => void>;
  if (upgrades.length === 0) return;
  server.removeAllListeners("upgrade");
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!allowed(req)) return void socket.destroy();
    for (const listener of upgrades) listener.call(server, req, socket, head);
  });
}
