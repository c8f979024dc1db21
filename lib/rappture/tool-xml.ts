// A tool.xml read whole: the tool's name, description, version and command, and its inputs.
// A malformed file is one line naming the file, the line and what is wrong.
import { readFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { type RapptureInput, readInputs } from "./inputs.ts";
import { child, parseXml, textAt, type XmlElement, XmlError } from "./xml.ts";

export interface RappturePublication {
  /** The tool's name in MCP: `<tool><id>`, else the folder's name (the one above `rappture/`). */
  name: string;
  title: string;
  description: string;
  version: string;
  /** The command with `@tool` and `@driver` still in it. */
  command: string;
  /** The folder `@tool` names: the one holding tool.xml. */
  folder: string;
  run: XmlElement;
  inputs: RapptureInput[];
}

export class ToolXmlError extends Error {
  readonly code = "HUBMCP_TOOL_XML_INVALID";
}

const NAME = /[^A-Za-z0-9_-]+/g;

export function readToolXml(file: string): RappturePublication {
  let run: XmlElement;
  try {
    run = parseXml(readFileSync(file, "utf8"));
  } catch (err) {
    if (err instanceof XmlError) throw new ToolXmlError(`${file}: ${err.message}`);
    throw new ToolXmlError(`${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
  if (run.name !== "run") throw new ToolXmlError(`${file}: line ${run.line}: the root element is <${run.name}>, not <run>`);
  const tool = child(run, "tool");
  const command = tool && textAt(tool, "command");
  if (!command) throw new ToolXmlError(`${file}: no <tool><command>: Rappture needs the command that runs the tool`);
  const folder = dirname(file);
  const above = basename(folder) === "rappture" ? basename(dirname(folder)) : basename(folder);
  const name = (textAt(tool, "id") || above).replace(NAME, "_").slice(0, 64) || "rappture_tool";
  const title = textAt(tool, "title") || name;
  return {
    name,
    title,
    description: textAt(tool, "about") || title,
    version: textAt(tool, "version.identifier") || textAt(tool, "version") || "",
    command,
    folder,
    run,
    inputs: readInputs(run),
  };
}
