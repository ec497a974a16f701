/**
 * The request-input rules every route shares: zod failures → the spec's 422 issues (`loc`
 * starts with where the value came from: `body`, `query`, `path`; `type` is a short machine
 * word, decisions.md), strict integers for path and query strings, and the values no route may
 * receive (NUL, unpaired surrogates, runaway nesting).
 */
import { z } from '../lib/zod.ts';
import type { ValidationIssue } from '../core/errors.ts';
import { HIDDEN_OR_CONTROL } from '../core/domain/display-names.ts';

export type Source = 'body' | 'query' | 'path';

/**
 * A name people read (a person's full name, a business's name): trimmed, 1 to `max`
 * characters, no control characters or bidi overrides (422 `string_pattern_mismatch`).
 * Letters of every script, emoji and joiners stay allowed.
 */
export function displayName(max = 100) {
  return z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((value) => !HIDDEN_OR_CONTROL.test(value), {
      message: 'String should not contain control characters or bidirectional overrides',
      params: { type: 'string_pattern_mismatch' },
    });
}

/** The largest value of a PostgreSQL `integer` (int4) column. */
export const INT4_MAX = 2_147_483_647;

/**
 * An integer sent as a path or query string: ASCII digits only, so `0x1`, `1e0`, ` 2`, `-1`,
 * `+3` and `2.0` are 422 `int_parsing` instead of naming another row. The column's range is
 * part of the type (also `int_parsing` beyond it): `int4` up to 2,147,483,647; `int8` (the
 * default) up to 2^53−1, the largest integer a JSON number carries exactly (bigint identities
 * never get near it). `min`/`max` are the route's own bounds (`greater_than_equal`,
 * `less_than_equal`). Documented as an OpenAPI integer, so its path parameters are required.
 */
export function intParam(options: { type?: 'int4' | 'int8'; min?: number; max?: number } = {}) {
  const limit = options.type === 'int4' ? INT4_MAX : Number.MAX_SAFE_INTEGER;
  let number = z.number().int();
  if (options.min !== undefined) number = number.min(options.min);
  if (options.max !== undefined) number = number.max(options.max);
  return z
    .custom<string>((value) => typeof value === 'string' && /^[0-9]{1,16}$/.test(value) && Number(value) <= limit, {
      message: 'Input should be a valid integer',
      params: { type: 'int_parsing' },
    })
    .transform(Number)
    .pipe(number)
    .openapi({
      type: 'integer',
      format: options.type === 'int4' ? 'int32' : 'int64',
      minimum: options.min ?? 0,
      maximum: Math.min(options.max ?? limit, limit),
    });
}

function issueType(issue: z.core.$ZodIssue & { input?: unknown }): string {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return 'missing';
      const expected = issue.expected as string;
      if (expected === 'string') return 'string_type';
      if (expected === 'boolean') return 'bool_type';
      if (expected === 'number' || expected === 'int' || expected === 'bigint') return 'int_parsing';
      if (expected === 'array') return 'list_type';
      if (expected === 'object') return 'dict_type';
      return `${expected}_type`;
    }
    case 'too_small':
      if (issue.origin === 'string') return 'string_too_short';
      if (issue.origin === 'array' || issue.origin === 'set') return 'too_short';
      return issue.inclusive === false ? 'greater_than' : 'greater_than_equal';
    case 'too_big':
      if (issue.origin === 'string') return 'string_too_long';
      if (issue.origin === 'array' || issue.origin === 'set') return 'too_long';
      return issue.inclusive === false ? 'less_than' : 'less_than_equal';
    case 'invalid_format':
      return issue.format === 'uuid' || issue.format === 'guid' ? 'uuid_parsing' : 'value_error';
    case 'invalid_value':
      return issue.input === undefined ? 'missing' : 'enum';
    case 'custom':
      if (issue.input === undefined) return 'missing';
      return typeof issue.params?.type === 'string' ? issue.params.type : 'value_error';
    default:
      return 'value_error';
  }
}

const plural = (n: number | bigint, word: string) => `${n} ${word}${Number(n) === 1 ? '' : 's'}`;

/**
 * A size limit said as people (and FastAPI-style clients) read it: "String should have at least
 * 1 character", not zod's "Too small: expected string to have >=1 characters". A message the
 * schema gave itself is kept.
 */
function sizeMessage(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string | null {
  if (!/^Too (small|big)/.test(issue.message)) return null;
  const small = issue.code === 'too_small';
  const limit = small ? issue.minimum : issue.maximum;
  const bound = small ? 'at least' : 'at most';
  if (issue.origin === 'string') return `String should have ${bound} ${plural(limit, 'character')}`;
  if (issue.origin === 'array' || issue.origin === 'set') return `List should have ${bound} ${plural(limit, 'item')}`;
  if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint') {
    const inclusive = issue.inclusive !== false;
    return `Input should be ${small ? 'greater' : 'less'} than ${inclusive ? 'or equal to ' : ''}${limit}`;
  }
  return null;
}

function issueMessage(issue: z.core.$ZodIssue & { input?: unknown }, type: string): string {
  if (type === 'missing') return 'Field required';
  if (type === 'uuid_parsing') return 'Input should be a valid UUID';
  if (type === 'int_parsing') return 'Input should be a valid integer';
  if (issue.code === 'too_small' || issue.code === 'too_big') return sizeMessage(issue) ?? issue.message;
  return issue.message;
}

export function toValidationIssues(source: Source, issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.map((issue) => {
    const type = issueType(issue);
    return { loc: [source, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))], msg: issueMessage(issue, type), type };
  });
}
