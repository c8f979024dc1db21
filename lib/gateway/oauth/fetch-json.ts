// Reading a JSON document from an identity provider the operator configured (discovery, JWKS,
// token endpoint): bounded in time and size, and every failure one error the sign-in pages turn
// into "the provider can't be reached" rather than a crash.

const TIMEOUT_MS = 10_000;
const MAX_BYTES = 512 * 1024;

/** The provider did not answer, or answered something that is not a JSON object. */
export class ProviderUnreachable extends Error {
  readonly code = "HUBMCP_PROVIDER_UNREACHABLE";
}

export async function fetchJson(url: string, init: RequestInit = {}): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, redirect: "error", signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: "application/json", ...init.headers } });
  } catch {
    throw new ProviderUnreachable("the identity provider could not be reached");
  }
  const text = await boundedText(res);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ProviderUnreachable(`the identity provider answered ${res.status} without JSON`);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new ProviderUnreachable("the identity provider answered an unexpected document");
  return body as Record<string, unknown>;
}

async function boundedText(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BYTES) {
        await reader.cancel();
        throw new ProviderUnreachable("the identity provider's answer is too large");
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof ProviderUnreachable) throw err;
    throw new ProviderUnreachable("the identity provider's answer was cut off");
  }
  return Buffer.concat(chunks).toString("utf8");
}
