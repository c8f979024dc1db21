import { discoveryDocument } from "../../docs/discovery.ts";
import { openApiDocument } from "../../docs/openapi.ts";
import { serverInfoDocument } from "../../docs/server-info.ts";
import type { RouteHandler } from "../types.ts";
import { sendJson } from "../respond.ts";

export const documentRoutes = {
  info: (app, _req, res, url) => sendJson(res, 200, serverInfoDocument(app.core, url.base)),
  openapi: (app, _req, res, url) => sendJson(res, 200, openApiDocument(app.core, url.base)),
  discovery: (app, _req, res, url) => sendJson(res, 200, discoveryDocument(app.core, url.base)),
} satisfies Record<string, RouteHandler>;
