// Whether the address in a tool session's ready line may be forwarded to. The line is the
// session account's word: a Slurm job's output sits in a folder that account owns, and an
// `app` child's stdout is a pipe any process of that account can open through /proc. With
// `runAs: "@person"` that account is the person, who can also read whatever the session
// reads, its secret included, so a ready line signed with the secret would still be their
// word. Forwarding on it alone would let them aim the gateway's requests (with the secret,
// and their answers relayed) at any service the gateway's position reaches. So the address
// must agree with facts the person cannot forge:
//  - where the session runs: for a Slurm job, the host Slurm's controller names for its
//    batch script, and the address must be one that name resolves to here (the gateway's
//    own addresses pass only when the job runs on the gateway's host); for an `app` child,
//    loopback on this host (backends/app.ts);
//  - who listens there: the server at the address must answer a fresh challenge with an
//    HMAC keyed by the session secret and bound to that address (lib/http/session-secret.ts).
//    Only the session's server, or another process of the person's, can; the gateway's own
//    port, a database or another person's session cannot.
// Left open by design: the person may name a server of their own on the session's host, which
// reaches nothing their session could not reach itself; and the challenge is one fixed GET,
// carrying no secret, whose answer is never relayed.
import { randomBytes } from "node:crypto";
import { safeEqual } from "../../util/secrets.ts";
import { lookup } from "node:dns/promises";
import { get } from "node:http";
import { CHALLENGE_HEADER, PROOF_HEADER, sessionProof } from "../../http/session-secret.ts";

/** The challenge's bound: a listener that never answers is refused, not waited on. */
const CHALLENGE_TIMEOUT_MS = 5_000;

/** Whether the server at `url` proves it holds `secret`, for that very address. */
export async function provesSession(url: string, secret: string, timeoutMs = CHALLENGE_TIMEOUT_MS): Promise<boolean> {
  const { hostname, port } = new URL(url);
  const challenge = randomBytes(24).toString("base64url");
  const proof = await new Promise<string | undefined>((resolve) => {
    const req = get(url, { headers: { [CHALLENGE_HEADER]: challenge }, agent: false, timeout: timeoutMs }, (res) => {
      const value = res.headers[PROOF_HEADER];
      res.destroy();
      resolve(typeof value === "string" ? value : undefined);
    });
    req.once("timeout", () => req.destroy());
    req.once("error", () => resolve(undefined));
  });
  return safeEqual(proof ?? "", sessionProof(secret, challenge, `${hostname.replace(/^\[(.*)\]$/, "$1")}:${port}`));
}

/** Null when `url` is the Slurm job's own server on `node`; otherwise why not, for the log (not repeating the address, which is the person's text). */
export async function refuseJobAddress(url: string, node: string, secret: string, timeoutMs?: number): Promise<string | null> {
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, "$1");
  const addresses = await lookup(node, { all: true }).catch(() => []);
  if (!addresses.some((a) => a.address === host)) return `the job's ready line names an address that is not its node's (${node}): refused`;
  if (await provesSession(url, secret, timeoutMs)) return null;
  return `the server at the job's ready address (on ${node}) did not prove it is the session's: refused`;
}
