/**
 * zod failures → the spec's 422 issues: `loc` starts with where the value came from
 * (`body`, `query`, `path`), `type` is a short machine word (decisions.md).
 */
import type { z } from 'zod';
import type { ValidationIssue } from '../core/errors.ts';

type Source = 'body' | 'query' | 'path';

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
      return 'greater_than_equal';
    case 'too_big':
      if (issue.origin === 'string') return 'string_too_long';
      if (issue.origin === 'array' || issue.origin === 'set') return 'too_long';
      return 'less_than_equal';
    case 'invalid_format':
      return issue.format === 'uuid' || issue.format === 'guid' ? 'uuid_parsing' : 'value_error';
    case 'invalid_value':
      return issue.input === undefined ? 'missing' : 'enum';
    default:
      return 'value_error';
  }
}

function issueMessage(issue: z.core.$ZodIssue & { input?: unknown }, type: string): string {
  if (type === 'missing') return 'Field required';
  if (type === 'uuid_parsing') return 'Input should be a valid UUID';
  if (type === 'int_parsing') return 'Input should be a valid integer';
  return issue.message;
}

export function toValidationIssues(source: Source, issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.map((issue) => {
    const type = issueType(issue);
    return { loc: [source, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))], msg: issueMessage(issue, type), type };
  });
}
