/**
 * Values no route may receive, refused as 422 before any schema or handler sees them:
 * strings with NUL (PostgreSQL text and jsonb cannot store it) or an unpaired UTF-16 surrogate
 * (not Unicode: it cannot be encoded as UTF-8), in values and object keys alike, and arrays or
 * objects nested deeper than MAX_INPUT_DEPTH (recursive code downstream, JSON encoders included,
 * must never run out of stack on a client's input).
 */
import type { ValidationIssue } from '../core/errors.ts';
import type { Source } from './validation.ts';

/** Deepest nesting of arrays and objects a request value may have (the widget `config` is the deepest real one). */
export const MAX_INPUT_DEPTH = 32;

/** Enough for a client to fix its input; a hostile body does not get a 1 MiB error list back. */
const MAX_ISSUES = 20;

function stringProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'Text must not contain NUL (\\u0000) characters';
  if (!value.isWellFormed()) return 'Text must be valid Unicode (it contains an unpaired surrogate)';
  return null;
}

/** The 422 issues of one part of a request (path params, query or parsed body); [] when it is clean. */
export function unsafeInputIssues(source: Source, value: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const path: (string | number)[] = [];
  const report = (msg: string) => issues.push({ loc: [source, ...path], msg, type: 'value_error' });
  const visit = (node: unknown, depth: number): void => {
    if (issues.length >= MAX_ISSUES) return;
    if (typeof node === 'string') {
      const problem = stringProblem(node);
      if (problem) report(problem);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    if (depth >= MAX_INPUT_DEPTH) {
      report(`Input must not be nested more than ${MAX_INPUT_DEPTH} levels deep`);
      return;
    }
    const entries: [string | number, unknown][] = Array.isArray(node) ? node.map((item, i) => [i, item]) : Object.entries(node);
    for (const [key, item] of entries) {
      path.push(key);
      const keyProblem = typeof key === 'string' ? stringProblem(key) : null;
      if (keyProblem) report(keyProblem);
      else visit(item, depth + 1);
      path.pop();
    }
  };
  visit(value, 0);
  return issues;
}
