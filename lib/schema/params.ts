// A handler's parameter list as read from its source text: what the input schema of a
// plain handler is generated from (./generate.ts).

export interface ParamField {
  name: string;
  /** Source text of the default value, when the parameter has one. */
  defaultSource?: string;
}

export type Param =
  | ({ kind: "name" } & ParamField)
  | { kind: "object"; fields: ParamField[]; rest: boolean; defaultSource?: string }
  | { kind: "rest"; name: string }
  | { kind: "array" };
