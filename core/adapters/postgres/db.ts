/**
 * The slonik pool. Every query that returns rows is typed with a zod schema
 * (`sql.type(schema)`), and the result parser interceptor below checks each row against it.
 * Timestamps come back as ISO 8601 strings with milliseconds, counts (int8) as numbers.
 * Waits on the database are bounded (`timeoutMs`, DB_TIMEOUT): see db-outage.ts.
 */
import { createHash } from 'node:crypto';
import { createPool, createSqlTag, SchemaValidationError, type DatabasePool, type CommonQueryMethods, type Interceptor, type QuerySqlToken } from 'slonik';
import { boundedDriverFactory } from './db-outage.ts';

export type Db = DatabasePool;
/** Anything that can run a query: the pool, a connection or a transaction. */
export type Queryable = CommonQueryMethods;

export const sql = createSqlTag();

/**
 * Distinct statement texts `prepared` names at most; past it a text runs unnamed, as every other
 * statement does (each prepared statement holds its plan in every connection that ran it).
 */
const MAX_PREPARED = 500;
const preparedNames = new Map<string, string>();

/**
 * The statement as a named prepared statement: each connection parses and plans it once, then
 * only binds and executes (an unnamed statement is parsed and planned on every run, which on the
 * hot paths cost PostgreSQL more CPU than executing them). Every connection of the pool plans
 * with `plan_cache_mode = force_generic_plan` (createDb), so a prepared statement is planned
 * once without its parameters: mark only statements whose best plan does not depend on the
 * values, i.e. lookups by key (`id = $1`, `id = any($1)`) on the reply, delivery and webhook
 * paths. Lists, search and reports stay unnamed; the setting holds for unnamed statements with
 * parameters too, so search and reports set it back for their transaction (withCustomPlans).
 * The name is the text's hash, so statements built from fragments get one name per variant.
 */
export function prepared<T extends QuerySqlToken>(query: T): T {
  let name = preparedNames.get(query.sql);
  if (name === undefined) {
    if (preparedNames.size >= MAX_PREPARED) return query;
    name = `parley_${createHash('sha1').update(query.sql).digest('base64url')}`;
    preparedNames.set(query.sql, name);
  }
  return { ...query, name };
}

/**
 * The connection string with `plan_cache_mode = force_generic_plan` added to its startup
 * options (kept beside any it has): see `prepared`. It also holds for the statements inside
 * Parley's PL/pgSQL functions, which are all keyed by id as well.
 */
export function withGenericPlans(connectionUri: string): string {
  const url = new URL(connectionUri);
  const options = [url.searchParams.get('options'), '-c plan_cache_mode=force_generic_plan'].filter(Boolean).join(' ');
  url.searchParams.set('options', options);
  return url.toString();
}

/**
 * The session setting that makes PostgreSQL plan each statement for its values again, inside
 * the transaction it runs in (`set_config(…, true)`: it ends with it). Under the connection's
 * `force_generic_plan` an unnamed statement with parameters is planned without its values too
 * (PostgreSQL decides custom or generic per bind, named or not), which reads whose best plan
 * depends on the values cannot afford: search chose the GIN index for the newest 2,000 messages
 * of a word in half of them (5 s where the value's plan takes 0.1 ms), and the reports a nested
 * loop over every conversation of the range (issue #39).
 */
export const CUSTOM_PLANS = sql.fragment`set_config('plan_cache_mode', 'force_custom_plan', true)`;

/**
 * Runs `run` in a transaction whose statements are planned for their values (CUSTOM_PLANS): for
 * reads whose plan depends on them (search; the reports add settings of their own, see
 * core/domain/reports.ts `analytic`). One round trip more than running them on `q` directly.
 */
export function withCustomPlans<T>(q: Queryable, run: (t: Queryable) => Promise<T>): Promise<T> {
  return q.transaction(async (t) => {
    await t.query(sql.unsafe`select ${CUSTOM_PLANS}`);
    return run(t);
  });
}

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

export type DbOptions = {
  /** Connections at most (default 10). */
  maxPoolSize?: number;
  /**
   * Ms to wait for a connection, and for each query's answer, before the database counts as
   * unavailable (default 5,000). The server cancels a statement at the same limit.
   */
  timeoutMs?: number;
};

export async function createDb(connectionUri: string, options: DbOptions = {}): Promise<Db> {
  const timeoutMs = options.timeoutMs ?? 5000;
  return createPool(withGenericPlans(connectionUri), {
    maxPoolSize: options.maxPoolSize ?? 10,
    // A transaction that loses a deadlock or serialization race (SQLSTATE class 40) is run again
    // from the start, at most twice, so a client sees a 500 only when the race keeps repeating.
    // Every handler only writes rows and enqueues jobs (events are published after commit), so
    // running it again is safe.
    transactionRetryLimit: 2,
    connectionTimeout: timeoutMs,
    // Each retry would wait the whole timeout again; a refused connection fails at once anyway.
    connectionRetryLimit: 0,
    statementTimeout: timeoutMs,
    // How long destroying a connection waits for its query: short, it is being given up on.
    gracefulTerminationTimeout: Math.min(1000, timeoutMs),
    driverFactory: boundedDriverFactory(timeoutMs),
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
