/** A webhook body as JSON checked by a schema; undefined for anything that is not (such bodies carry no events). */
import type { z } from 'zod';

export function parseJsonBody<T>(rawBody: Buffer, schema: z.ZodType<T>): T | undefined {
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
