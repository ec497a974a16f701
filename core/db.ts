/**
 * The slonik pool. Every query that returns rows is typed with a zod schema
 * (`sql.type(schema)`), and the result parser interceptor below checks each row against it.
 * Timestamps come back as ISO 8601 strings with milliseconds, counts (int8) as numbers.
 */
import {
  createPool,
  createSqlTag,
  SchemaValidationError,
  type DatabasePool,
  type DatabaseTransactionConnection,
  type CommonQueryMethods,
  type Interceptor,
} from 'slonik';

export type Db = DatabasePool;
export type Tx = DatabaseTransactionConnection;
/** Anything that can run a query: the pool, a connection or a transaction. */
export type Queryable = CommonQueryMethods;

export const sql = createSqlTag();

const resultParserInterceptor: Interceptor = {
  name: 'zod-result-parser',
  transformRowAsync: async (context, query, row) => {
    const parser = context.resultParser;
    if (!parser) return row;
    const result = await parser['~standard'].validate(row);
    if (result.issues) throw new SchemaValidationError(query, row, result.issues);
    return result.value as typeof row;
  },
};

const toIso = (value: string | null) => (value === null ? null : new Date(value).toISOString());

export async function createDb(connectionUri: string, options: { maxPoolSize?: number } = {}): Promise<Db> {
  return createPool(connectionUri, {
    maxPoolSize: options.maxPoolSize ?? 10,
    // slonik's default sends DISCARD ALL each time a connection goes back to the pool: one more
    // round trip per query or transaction outside it. Parley leaves no session state behind
    // (transaction-scoped advisory locks and SET LOCAL only), so there is nothing to discard.
    resetConnection: async () => {},
    interceptors: [resultParserInterceptor],
    typeParsers: [
      { name: 'timestamptz', parse: toIso },
      { name: 'timestamp', parse: toIso },
      { name: 'int8', parse: (v: string) => Number(v) },
      { name: 'numeric', parse: (v: string) => Number(v) },
    ],
  });
}
