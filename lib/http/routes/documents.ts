import { discoveryDocument } from "../../docs/discovery.ts";
import { openApiDocument } from "../../docs/openapi.ts";
import { serverInfoDocument } from "../../docs/server-info.ts";
import type { RouteHandler } from "../app.ts";
import { sendJson } from "../respond.ts";

export const documentRoutes = {
  info: (app, _req, res) => sendJson(res, 200, serverInfoDocument(app.core)),
  openapi: (app, _req, res) => sendJson(res, 200, openApiDocument(app.core)),
  discovery: (app, _req, res) => sendJson(res, 200, discoveryDocument(app.core)),
} satisfies Record<string, RouteHandler>;
