import type { ServerCore } from "../core.ts";
import type { Call } from "../exchange.ts";
import { JsonRpcError, invalidParams } from "../errors.ts";
import { logHandlerFailure } from "../../util/logger.ts";
import { ErrorCode, isJsonRpcError } from "../../util/jsonrpc.ts";
import { MAX_SUBSCRIPTIONS_PER_SESSION } from "../subscriptions.ts";
import type { RegisteredResource } from "../../registry/resources.ts";
import type { RegisteredTemplate } from "../../registry/resource-templates.ts";
import { paginate } from "./paginate.ts";
import type { MethodTable } from "./types.ts";

/**
 * Finds a resource by URI as a client may send it: exactly, or with a gateway's URL glued
 * in front of a `ui://` URI (`https://proxy.host/prefix/ui://app/page`), where the text from
 * the last non-http scheme marker onward is the real URI.
 */
export function findResource(core: ServerCore, uri: string): RegisteredResource | undefined {
  const exact = core.resources.get(uri);
  if (exact) return exact;
  const rest = uri.replace(/^https?:\/\/[^/]*/i, "");
  const markers = [...rest.matchAll(/([A-Za-z][A-Za-z0-9+.-]*):\/\//g)].filter((m) => !/^https?$/i.test(m[1]!));
  const last = markers.at(-1);
  return last ? core.resources.get(rest.slice(last.index)) : undefined;
}

type Found =
  | { kind: "resource"; resource: RegisteredResource }
  | { kind: "template"; template: RegisteredTemplate; uri: string; variables: Record<string, string> };

/** A fixed resource wins over a template that would also fit the URI. */
export function resolveUri(core: ServerCore, uri: string): Found | undefined {
  const resource = findResource(core, uri);
  if (resource) return { kind: "resource", resource };
  for (const template of core.templates.values()) {
    const variables = template.match(uri);
    if (variables) return { kind: "template", template, uri, variables };
  }
  return undefined;
}

function uriParam(params: Record<string, unknown>): string {
  const uri = params.uri;
  if (typeof uri !== "string") throw invalidParams("Invalid params: uri must be a string");
  return uri;
}

const notFound = (uri: string) => new JsonRpcError(ErrorCode.ResourceNotFound, "Resource not found", { uri: uri.slice(0, 2048) });

function needSession(scope: Call, method: string) {
  if (!scope.session) throw new JsonRpcError(ErrorCode.InvalidRequest, `${method} needs an MCP session`);
  return scope.session;
}

export const resourceMethods = {
  "resources/list": (params, { core }) =>
    paginate(
      Array.from(core.resources.values(), (r) => r.entry),
      params,
      core.pageSize,
      "resources",
    ),

  "resources/templates/list": (params, { core }) =>
    paginate(
      Array.from(core.templates.values(), (t) => t.entry),
      params,
      core.pageSize,
      "resourceTemplates",
    ),

  async "resources/read"(params, { core, session }) {
    const uri = uriParam(params);
    const found = resolveUri(core, uri);
    if (!found) throw notFound(uri);
    try {
      const content =
        found.kind === "resource" ? await found.resource.read() : await found.template.read(found.uri, found.variables, { sessionId: session?.id ?? null });
      return { contents: [content] };
    } catch (err) {
      // A handler may answer "not found" or "invalid params" itself.
      if (isJsonRpcError(err)) throw err;
      const which = found.kind === "resource" ? found.resource.uri : found.template.uriTemplate;
      logHandlerFailure(core.logger, "resource", which, err);
      throw new JsonRpcError(ErrorCode.InternalError, "Resource handler failed");
    }
  },

  "resources/subscribe"(params, scope) {
    const uri = uriParam(params);
    const session = needSession(scope, "resources/subscribe");
    const found = resolveUri(scope.core, uri);
    if (!found) throw notFound(uri);
    if (!scope.core.subscriptions.add(session, found.kind === "resource" ? found.resource.uri : found.uri)) {
      throw invalidParams(`Too many subscriptions in this session (limit ${MAX_SUBSCRIPTIONS_PER_SESSION}); unsubscribe first`);
    }
    return {};
  },

  "resources/unsubscribe"(params, scope) {
    const uri = uriParam(params);
    const session = needSession(scope, "resources/unsubscribe");
    const found = resolveUri(scope.core, uri);
    scope.core.subscriptions.remove(session, found?.kind === "resource" ? found.resource.uri : uri);
    return {};
  },
} satisfies MethodTable;
