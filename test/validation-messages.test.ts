/**
 * The reasons of a 422 read as sentences (api/validation.ts): size limits in FastAPI's words
 * ("String should have at least 1 character"), not zod's ("Too small: expected string to have
 * >=1 characters"), since the app shows them under the field; a message a schema gives itself
 * is kept.
 */
import test from 'ava';
import { z } from '../lib/zod.ts';
import { toValidationIssues } from '../api/validation.ts';

const reasons = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('accepted');
  return toValidationIssues('body', parsed.error.issues).map((i) => [i.loc.join('.'), i.msg, i.type]);
};

test('size limits are said as sentences, for strings, lists and numbers', (t) => {
  const schema = z.object({
    name: z.string().trim().min(1).max(5),
    tags: z.array(z.string()).min(1).max(2),
    days: z.number().int().min(1).max(36500),
    share: z.number().gt(0).lt(1),
  });
  t.deepEqual(reasons(schema, { name: ' ', tags: [], days: 0, share: 0 }), [
    ['body.name', 'String should have at least 1 character', 'string_too_short'],
    ['body.tags', 'List should have at least 1 item', 'too_short'],
    ['body.days', 'Input should be greater than or equal to 1', 'greater_than_equal'],
    ['body.share', 'Input should be greater than 0', 'greater_than'],
  ]);
  t.deepEqual(reasons(schema, { name: 'abcdef', tags: ['a', 'b', 'c'], days: 36501, share: 1 }), [
    ['body.name', 'String should have at most 5 characters', 'string_too_long'],
    ['body.tags', 'List should have at most 2 items', 'too_long'],
    ['body.days', 'Input should be less than or equal to 36500', 'less_than_equal'],
    ['body.share', 'Input should be less than 1', 'less_than'],
  ]);
});

test("a schema's own message is kept", (t) => {
  t.deepEqual(reasons(z.object({ code: z.string().min(6, 'Enter the 6 digits from the app') }), { code: '123' }), [
    ['body.code', 'Enter the 6 digits from the app', 'string_too_short'],
  ]);
});
