/** The part of pg-native 3 (libpq bindings, no published types) the PostgreSQL store uses. */
declare module "pg-native" {
  export default class Client {
    constructor(options?: { readonly types?: unknown });
    /** Connects with a libpq connection string or URL; throws on failure. */
    connectSync(connectionString?: string): void;
    /** Runs one parameterised statement and returns its rows; throws the server's error. */
    querySync(text: string, values?: readonly unknown[]): Record<string, unknown>[];
    end(callback?: () => void): void;
  }
}
