// Parameter types of a TypeScript source file's functions, as JSON Schema. Syntax only
// (no type checker, so compiling stays fast): keywords, arrays, literal unions, inline
// object types, and interfaces or type aliases declared in the same file. A type with
// no JSON Schema equivalent accepts anything and is reported.
import type TS from "typescript";
import type { ParamTypes } from "../registry/param-types.ts";
import type { SchemaObject } from "../schema/index.ts";

type Ts = typeof TS;

/** A function with at least one typed parameter, and what its parameters declare. */
export interface TypedFunction {
  node: TS.FunctionLikeDeclaration;
  types: ParamTypes;
  /** `name: Type` of parameters whose type could not be expressed. */
  unexpressible: string[];
}

const CONTEXT_TYPES = new Set(["ToolContext"]);
const MAX_DEPTH = 8;

class Converter {
  readonly unexpressible: string[] = [];
  constructor(
    private readonly ts: Ts,
    private readonly declarations: Map<string, TS.InterfaceDeclaration | TS.TypeAliasDeclaration>,
    private readonly file: TS.SourceFile,
  ) {}

  /** The schema of `type`; `optional` is set when the type admits `undefined`. */
  convert(type: TS.TypeNode, label: string, depth = 0): { schema: SchemaObject; optional: boolean } {
    const ts = this.ts;
    const plain = (schema: SchemaObject) => ({ schema, optional: false });
    if (depth > MAX_DEPTH) return plain(this.give(label, type));
    switch (type.kind) {
      case ts.SyntaxKind.NumberKeyword:
        return plain({ type: "number" });
      case ts.SyntaxKind.StringKeyword:
        return plain({ type: "string" });
      case ts.SyntaxKind.BooleanKeyword:
        return plain({ type: "boolean" });
      case ts.SyntaxKind.UnknownKeyword:
      case ts.SyntaxKind.AnyKeyword:
        return plain({});
      case ts.SyntaxKind.UndefinedKeyword:
        return { schema: {}, optional: true };
    }
    if (ts.isParenthesizedTypeNode(type)) return this.convert(type.type, label, depth + 1);
    if (ts.isArrayTypeNode(type)) return plain({ type: "array", items: this.convert(type.elementType, label, depth + 1).schema });
    if (ts.isTypeOperatorNode(type) && type.operator === ts.SyntaxKind.ReadonlyKeyword) return this.convert(type.type, label, depth + 1);
    if (ts.isLiteralTypeNode(type)) {
      const value = this.literal(type);
      return value === undefined ? plain(this.give(label, type)) : plain(value === null ? { type: "null" } : { type: typeof value, enum: [value] });
    }
    if (ts.isUnionTypeNode(type)) return this.union(type, label, depth);
    if (ts.isTypeLiteralNode(type)) return plain(this.object(type.members, label, depth));
    if (ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName)) return this.reference(type, type.typeName.text, label, depth);
    return plain(this.give(label, type));
  }

  private literal(type: TS.LiteralTypeNode): string | number | boolean | null | undefined {
    const ts = this.ts;
    const lit = type.literal;
    if (ts.isStringLiteral(lit)) return lit.text;
    if (ts.isNumericLiteral(lit)) return Number(lit.text);
    if (ts.isPrefixUnaryExpression(lit) && lit.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(lit.operand)) return -Number(lit.operand.text);
    if (lit.kind === ts.SyntaxKind.TrueKeyword) return true;
    if (lit.kind === ts.SyntaxKind.FalseKeyword) return false;
    if (lit.kind === ts.SyntaxKind.NullKeyword) return null;
    return undefined;
  }

  private union(type: TS.UnionTypeNode, label: string, depth: number): { schema: SchemaObject; optional: boolean } {
    const ts = this.ts;
    let optional = false;
    let nullable = false;
    const members: TS.TypeNode[] = [];
    for (const member of type.types) {
      if (member.kind === ts.SyntaxKind.UndefinedKeyword) optional = true;
      else if (ts.isLiteralTypeNode(member) && member.literal.kind === ts.SyntaxKind.NullKeyword) nullable = true;
      else members.push(member);
    }
    let schema: SchemaObject;
    const literals = members.map((m) => (ts.isLiteralTypeNode(m) ? this.literal(m) : undefined));
    if (members.length === 1) schema = this.convert(members[0]!, label, depth + 1).schema;
    else if (members.length > 0 && literals.every((v) => v !== undefined && v !== null)) {
      const kinds = new Set(literals.map((v) => typeof v));
      const values = [...new Set(literals)];
      schema =
        kinds.size === 1 ? (kinds.has("boolean") && values.length === 2 ? { type: "boolean" } : { type: [...kinds][0]!, enum: values }) : { enum: values };
    } else if (members.length > 0) schema = { anyOf: members.map((m) => this.convert(m, label, depth + 1).schema) };
    else schema = {};
    if (nullable) schema = withNull(schema);
    return { schema, optional };
  }

  private object(members: TS.NodeArray<TS.TypeElement>, label: string, depth: number): SchemaObject {
    const ts = this.ts;
    const properties: Record<string, SchemaObject> = {};
    const required: string[] = [];
    for (const member of members) {
      if (!ts.isPropertySignature(member) || member.type === undefined) return this.give(label, undefined);
      const name = propertyName(ts, member.name);
      if (name === null) return this.give(label, undefined);
      const { schema, optional } = this.convert(member.type, `${label}.${name}`, depth + 1);
      const doc = jsDocText(ts, member);
      properties[name] = doc ? { ...schema, description: doc } : schema;
      if (!optional && member.questionToken === undefined) required.push(name);
    }
    return required.length ? { type: "object", properties, required } : { type: "object", properties };
  }

  private reference(type: TS.TypeReferenceNode, name: string, label: string, depth: number): { schema: SchemaObject; optional: boolean } {
    const args = type.typeArguments ?? [];
    if ((name === "Array" || name === "ReadonlyArray") && args.length === 1) {
      return { schema: { type: "array", items: this.convert(args[0]!, label, depth + 1).schema }, optional: false };
    }
    if (name === "Record" && args.length === 2 && args[0]!.kind === this.ts.SyntaxKind.StringKeyword) {
      return { schema: { type: "object", additionalProperties: this.convert(args[1]!, label, depth + 1).schema }, optional: false };
    }
    const declared = args.length === 0 ? this.declarations.get(name) : undefined;
    if (declared && this.ts.isInterfaceDeclaration(declared) && !declared.heritageClauses && !declared.typeParameters) {
      return { schema: this.object(declared.members, label, depth + 1), optional: false };
    }
    if (declared && this.ts.isTypeAliasDeclaration(declared) && !declared.typeParameters) return this.convert(declared.type, label, depth + 1);
    return { schema: this.give(label, type), optional: false };
  }

  /** Anything goes for a type JSON Schema cannot say; the parameter is reported once. */
  private give(label: string, type: TS.TypeNode | undefined): SchemaObject {
    const text = type ? type.getText(this.file).replace(/\s+/g, " ").slice(0, 80) : "?";
    this.unexpressible.push(`${label}: ${text}`);
    return {};
  }
}

function withNull(schema: SchemaObject): SchemaObject {
  const out: SchemaObject = { ...schema };
  if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  if (typeof out.type === "string") out.type = [out.type, "null"];
  else if (!Array.isArray(out.enum)) return { anyOf: [schema, { type: "null" }] };
  return out;
}

function propertyName(ts: Ts, name: TS.PropertyName): string | null {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return null;
}

function jsDocText(ts: Ts, node: TS.Node): string {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  const last = docs.at(-1);
  return last ? (ts.getTextOfJSDocComment(last.comment) ?? "").trim() : "";
}

function jsDocParams(ts: Ts, node: TS.Node): Record<string, string> {
  const out: Record<string, string> = {};
  for (const tag of ts.getJSDocTags(node)) {
    if (!ts.isJSDocParameterTag(tag)) continue;
    const name = ts.isIdentifier(tag.name) ? tag.name.text : tag.name.right.text;
    const text = (ts.getTextOfJSDocComment(tag.comment) ?? "").replace(/^\s*-\s*/, "").trim();
    if (text) out[name] = text;
  }
  return out;
}

function isContextType(ts: Ts, type: TS.TypeNode | undefined): boolean {
  if (!type || !ts.isTypeReferenceNode(type)) return false;
  const name = ts.isIdentifier(type.typeName) ? type.typeName.text : type.typeName.right.text;
  return CONTEXT_TYPES.has(name);
}

/** The JSDoc of a function, or of the variable statement it initialises. */
function docHost(ts: Ts, fn: TS.FunctionLikeDeclaration): TS.Node {
  const parent = fn.parent;
  if ((ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && ts.isVariableDeclaration(parent) && ts.isVariableDeclarationList(parent.parent)) {
    return parent.parent.parent;
  }
  return fn;
}

function typesOf(ts: Ts, fn: TS.FunctionLikeDeclaration, converter: Converter): TypedFunction | null {
  // A `this` parameter is erased: it is no argument and takes no position.
  const params = fn.parameters.filter((p) => !(ts.isIdentifier(p.name) && p.name.text === "this"));
  if (!params.some((p) => p.type !== undefined)) return null;
  const properties: Record<string, SchemaObject> = {};
  const optional: string[] = [];
  const types: ParamTypes = { properties, optional };
  const before = converter.unexpressible.length;
  const first = params[0]!;
  if (ts.isObjectBindingPattern(first.name)) {
    // `({a, b}: {a: number; b?: string})`: the keys of the object type are the arguments.
    if (first.type) {
      const { schema } = converter.convert(first.type, "arguments");
      const props = (schema.properties ?? {}) as Record<string, SchemaObject>;
      const required = new Set((schema.required ?? []) as string[]);
      for (const [key, prop] of Object.entries(props)) {
        properties[key] = prop;
        if (!required.has(key)) optional.push(key);
      }
    }
    const second = params[1];
    if (second && isContextType(ts, second.type)) types.context = 1;
  } else {
    params.forEach((param, index) => {
      if (!ts.isIdentifier(param.name)) return;
      if (isContextType(ts, param.type)) {
        types.context = index;
        return;
      }
      const name = param.name.text;
      if (param.questionToken) optional.push(name);
      if (!param.type) return;
      const converted = converter.convert(param.type, name);
      properties[name] = converted.schema;
      if (converted.optional && !optional.includes(name)) optional.push(name);
    });
  }
  const host = docHost(ts, fn);
  const description = jsDocText(ts, host);
  if (description) types.description = description;
  const docParams = jsDocParams(ts, host);
  if (Object.keys(docParams).length) types.params = docParams;
  return { node: fn, types, unexpressible: converter.unexpressible.slice(before) };
}

/** Every function in `file` with a typed parameter, with its parameter schemas. */
export function typedFunctions(ts: Ts, file: TS.SourceFile): TypedFunction[] {
  const declarations = new Map<string, TS.InterfaceDeclaration | TS.TypeAliasDeclaration>();
  const functions: TS.FunctionLikeDeclaration[] = [];
  const visit = (node: TS.Node): void => {
    if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) declarations.set(node.name.text, node);
    if (ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node)) functions.push(node);
    ts.forEachChild(node, visit);
  };
  visit(file);
  const converter = new Converter(ts, declarations, file);
  return functions.flatMap((fn) => typesOf(ts, fn, converter) ?? []);
}
