// The little of the pg driver the specs and the bench use directly (the store itself loads it
// untyped, lib/gateway/store/postgres-record-store.ts), so no @types package is needed.
declare module "pg" {
  export class Client {
    constructor(config: { host?: string; port?: number; user?: string; database?: string; password?: string; connectionString?: string });
    connect(): Promise<void>;
    query(text: string, values?: readonly unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
    end(): Promise<void>;
  }
  const pg: { Client: typeof Client };
  export default pg;
}
