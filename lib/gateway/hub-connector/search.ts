// The built-in search lives with the relays (../../federation/search.ts): `/mcp` and
// hub_bridge offer the same tool. Kept for the connector's endpoint, which imports it here.
export { searchResult } from "../../federation/search.ts";
