// What a tool may ask of the client mid-call (MCP 2025-11-25 client features): the
// capability checks, the request shapes, and the checks on the answers. The waiting
// itself is ClientRequests'; the public methods are on the tool context.
import { compileSchema, isFlatElicitationSchema, type SchemaObject, type Validator } from "../schema/index.ts";
import { ClientRequestError } from "./client-requests.ts";
import { isRecord } from "../util/guards.ts";

export type ElicitAction = "accept" | "decline" | "cancel";

/** A form answer: `content` only when the user accepted. */
export type ElicitResult<T = Record<string, unknown>> = { action: "accept"; content: T } | { action: "decline" } | { action: "cancel" };

/** A URL-mode answer; `accept` means the user agreed to open the URL, not that they finished there. */
export interface UrlElicitResult {
  action: ElicitAction;
  elicitationId: string;
}

export interface SamplingMessage {
  role: "user" | "assistant";
  content: Record<string, unknown> | Record<string, unknown>[];
}

/** `sampling/createMessage` params; extra fields (modelPreferences, metadata, ...) pass through. */
export interface SamplingRequest {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
  [key: string]: unknown;
}

export interface SamplingResult {
  role: "user" | "assistant";
  content: Record<string, unknown> | Record<string, unknown>[];
  model: string;
  stopReason?: string;
  [key: string]: unknown;
}

export interface Root {
  uri: string;
  name?: string;
  [key: string]: unknown;
}

export type ClientFeature = "form elicitation" | "URL elicitation" | "sampling" | "roots";

/** `elicitation: {}` (the 2025-06-18 form) means form mode only. */
export function clientSupports(capabilities: Record<string, unknown>, feature: ClientFeature): boolean {
  switch (feature) {
    case "form elicitation": {
      const e = capabilities.elicitation;
      return isRecord(e) && (isRecord(e.form) || !isRecord(e.url));
    }
    case "URL elicitation": {
      const e = capabilities.elicitation;
      return isRecord(e) && isRecord(e.url);
    }
    case "sampling":
      return isRecord(capabilities.sampling);
    case "roots":
      return isRecord(capabilities.roots);
  }
}

export function unsupported(feature: ClientFeature, hasSession: boolean): ClientRequestError {
  return new ClientRequestError(
    "HUBMCP_CLIENT_UNSUPPORTED",
    hasSession
      ? `The client did not declare the ${feature} capability`
      : `${feature[0]!.toUpperCase()}${feature.slice(1)} needs an MCP session (a client connected through /mcp or /sse)`,
  );
}

/** Seconds, as the public options state timeouts, to milliseconds. */
export function timeoutMs(timeout: number | undefined, fallbackSeconds: number): number {
  if (timeout === undefined) return fallbackSeconds * 1000;
  if (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0) {
    throw new TypeError("timeout must be a positive number of seconds");
  }
  return Math.max(1, Math.round(timeout * 1000));
}

/** Checks the form schema at the call and compiles the check its answer must pass. */
export function formValidator(schema: SchemaObject): Validator {
  if (!isFlatElicitationSchema(schema)) {
    throw new TypeError(
      'elicit: the form schema must be flat: {type: "object", properties} whose properties are strings, numbers, integers, booleans or string enums',
    );
  }
  try {
    return compileSchema(schema);
  } catch (err) {
    throw new TypeError(`elicit: the form schema does not compile: ${(err as Error).message}`);
  }
}

function action(result: Record<string, unknown>): ElicitAction {
  const a = result.action;
  if (a === "accept" || a === "decline" || a === "cancel") return a;
  throw new ClientRequestError("HUBMCP_CLIENT_INVALID_ANSWER", "The client's elicitation answer has no valid action");
}

export function formAnswer(result: Record<string, unknown>, validate: Validator): ElicitResult {
  const which = action(result);
  if (which !== "accept") return { action: which };
  const content = result.content ?? {};
  if (!isRecord(content) || !validate(content).valid) {
    throw new ClientRequestError("HUBMCP_CLIENT_INVALID_ANSWER", "The client's elicitation answer does not match the requested schema");
  }
  return { action: "accept", content };
}

export function urlAnswer(result: Record<string, unknown>, elicitationId: string): UrlElicitResult {
  return { action: action(result), elicitationId };
}

export function samplingParams(request: SamplingRequest | string, maxTokens: number | undefined): Record<string, unknown> {
  if (typeof request === "string") {
    return { messages: [{ role: "user", content: { type: "text", text: request } }], maxTokens: maxTokens ?? 1000 };
  }
  if (!isRecord(request) || !Array.isArray(request.messages) || typeof request.maxTokens !== "number") {
    throw new TypeError("sample: pass a prompt string or {messages, maxTokens, ...}");
  }
  return { ...request };
}

export function samplingAnswer(result: Record<string, unknown>): SamplingResult {
  if (
    (result.role !== "user" && result.role !== "assistant") ||
    !(isRecord(result.content) || Array.isArray(result.content)) ||
    typeof result.model !== "string"
  ) {
    throw new ClientRequestError("HUBMCP_CLIENT_INVALID_ANSWER", "The client's sampling answer lacks role, content or model");
  }
  return result as SamplingResult;
}

export function rootsAnswer(result: Record<string, unknown>): Root[] {
  const roots = result.roots;
  if (!Array.isArray(roots) || !roots.every((r) => isRecord(r) && typeof r.uri === "string")) {
    throw new ClientRequestError("HUBMCP_CLIENT_INVALID_ANSWER", "The client's roots answer is not a list of {uri}");
  }
  return roots as Root[];
}
