/**
 * What the widget reports of a visitor's visit, kept on the visitor (customers.visitor_context)
 * and shown to agents beside the conversation: the page they are on and how they came, browser
 * and system (from the request's User-Agent, not from the page), language, time zone (the app
 * shows their local time), and the pages seen in this visit (the widget's list, newest last).
 * Replaced whole at each session start or resume (every page load of a visitor with a token).
 */
import { z } from '../../../lib/zod.ts';
import { sql, type Queryable } from '../../adapters/postgres/db.ts';
import { summariseUserAgent } from './user-agent.ts';

/** Pages of a visit kept: the latest ones. */
export const MAX_PAGES_SEEN = 20;

const webUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((v) => /^https?:\/\//i.test(v) && URL.canParse(v), { message: 'Must be an http(s) URL' });
const title = z.string().trim().max(300);

const validTimeZone = (zone: string): boolean => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

export const visitContextInput = z.object({
  page_url: webUrl.optional().openapi({ description: 'The page the visitor is on (http or https, at most 2,000 characters)' }),
  page_title: title.optional().openapi({ description: "That page's title (at most 300 characters)" }),
  referrer: z
    .union([webUrl, z.literal('')])
    .optional()
    .openapi({ description: 'Where the visit came from (document.referrer of its first page); empty when typed in or unknown' }),
  language: z
    .string()
    .trim()
    .max(35)
    .regex(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/, 'Must be a language tag such as en-GB')
    .optional()
    .openapi({ description: "The browser's language (navigator.language), a BCP 47 tag" }),
  timezone: z
    .string()
    .trim()
    .max(64)
    .refine(validTimeZone, { message: 'Must be an IANA time zone such as Europe/Paris' })
    .optional()
    .openapi({ description: "The visitor's time zone (IANA name): the app shows their local time" }),
  pages: z
    .array(z.object({ url: webUrl, title: title.optional(), at: z.iso.datetime({ offset: true }) }))
    .max(50)
    .optional()
    .openapi({ description: `Pages seen in this visit, oldest first (at most 50; the latest ${MAX_PAGES_SEEN} are kept)` }),
});
export type VisitContextInput = z.infer<typeof visitContextInput>;

export const visitSchema = z.object({
  page_url: z.string().nullable(),
  page_title: z.string().nullable(),
  referrer: z.string().nullable(),
  browser: z.string().nullable().openapi({ description: 'From the User-Agent, e.g. `Firefox 128`; null when not recognised' }),
  os: z.string().nullable().openapi({ description: 'From the User-Agent: Windows, macOS, iOS, iPadOS, Android, ChromeOS or Linux; null otherwise' }),
  language: z.string().nullable(),
  timezone: z.string().nullable(),
  pages: z.array(z.object({ url: z.string(), title: z.string().nullable(), at: z.string() })),
  seen_at: z.string().openapi({ description: 'When the widget last reported (a session started or resumed)' }),
});
export type Visit = z.infer<typeof visitSchema>;

/** Stores what the widget reported, with the browser and system read from `userAgent`. */
export async function recordVisitContext(q: Queryable, customerId: string, context: VisitContextInput, userAgent: string | undefined): Promise<void> {
  const { browser, os } = summariseUserAgent(userAgent);
  const visit: Visit = {
    page_url: context.page_url ?? null,
    page_title: context.page_title || null,
    referrer: context.referrer || null,
    browser,
    os,
    language: context.language ?? null,
    timezone: context.timezone ?? null,
    pages: (context.pages ?? []).slice(-MAX_PAGES_SEEN).map((p) => ({ url: p.url, title: p.title || null, at: new Date(p.at).toISOString() })),
    seen_at: new Date().toISOString(),
  };
  await q.query(sql.unsafe`update customers set visitor_context = ${JSON.stringify(visit)}::jsonb where id = ${customerId}`);
}

/** The visit of a customer of the business (null when it has none: not a website visitor, or a widget that reported nothing). */
export async function visitOf(q: Queryable, customerId: string): Promise<Visit | null> {
  const row = await q.maybeOne(sql.type(z.object({ visitor_context: z.unknown() }))`
    select visitor_context from customers where id = ${customerId} and visitor_context is not null`);
  if (!row) return null;
  const parsed = visitSchema.safeParse(row.visitor_context);
  return parsed.success ? parsed.data : null;
}
