// What a person's and a group's name may be, decided once: an account made by `user add`,
// one made by a sign-in at the hub's identity provider and the groups a claim maps to all
// meet the same rule, and oauth/ can hold a claim to it without importing the accounts. A
// tool's name is in URLs (`/api/mcp/{tool}/`) and prefixes its names at /mcp: gateway.json and
// `hub_gateway init` check it alike.
const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
/** A group's name as a JSON Schema `pattern`: gateway.json's group lists are declared with it. */
export const GROUP_NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$";
const GROUP_NAME = new RegExp(GROUP_NAME_PATTERN);
const TOOL_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** 1-64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit. */
export const isUserName = (name: string): boolean => USER_NAME.test(name);

/** 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit. */
export const isGroupName = (name: string): boolean => GROUP_NAME.test(name);

/** 1-64 letters, digits, '_' or '-', starting with a letter or digit. */
export const isToolName = (name: string): boolean => TOOL_NAME.test(name);
