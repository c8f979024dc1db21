// The console's script: the parts in ./client joined into one strict-mode function, served
// as console/console.js. The parts are JavaScript in strings (the page is not compiled for
// the browser); spec/console/script.spec.ts parses the whole and runs the pure parts.
import { appSource } from "./client/app.ts";
import { appsSource } from "./client/apps.ts";
import { callsSource } from "./client/calls.ts";
import { formModelSource } from "./client/form-model.ts";
import { renderSource } from "./client/render.ts";
import { rpcSource } from "./client/rpc.ts";
import { sseSource } from "./client/sse.ts";

export const consoleScript = ['"use strict";', "(function () {", sseSource, formModelSource, rpcSource, renderSource, appsSource, callsSource, appSource, "})();", ""].join("\n");
