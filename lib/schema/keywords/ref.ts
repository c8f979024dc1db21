// `$ref`: in 2020-12 a reference applies beside its sibling keywords, not instead of them.
import { fail, type Family } from "./shared.ts";

export const refKeywords: Family = (scope, c) => {
  const ref = scope.schema.$ref;
  if (ref === undefined) return null;
  if (typeof ref !== "string") fail(scope, "$ref", "must be a string");
  return c.ref(scope, ref);
};
