/**
 * CSAT: the settings (owners and admins), the customer's rating through the API (the widget) and
 * through the public page `/csat/{token}` (a plain form, no JavaScript needed).
 */
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import { z } from '../../../lib/zod.ts';
import {
  CSAT_TOKEN_TTL_DAYS,
  csatLinkExpired,
  findCsatSurvey,
  loadCsatSettings,
  rateCsat,
  updateCsatSettings,
  type CsatSettings,
} from '../../../core/commands/csat.ts';
import { authenticate } from '../../middlewares/auth.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { changingSettings } from '../../../core/events/domain.ts';
import { HttpError, forbidden } from '../../../core/errors.ts';
import { defineRoute } from '../../route.ts';
import { csatPage, csatPagePolicy, type PageState } from './page.ts';

const seeDecisions = 'See docs/decisions.md#sla-targets-and-csat.';

const settingsSchema = z
  .object({
    enabled: z.boolean().openapi({ description: 'Ask customers for a rating when their conversation is resolved' }),
    question: z.string().openapi({ description: 'The question asked, 1–500 characters' }),
  })
  .openapi('CsatSettings');

const presentSettings = (s: CsatSettings) => ({ enabled: s.enabled, question: s.question });

export const readSettings = defineRoute({
  method: 'get',
  path: '/api/v1/settings/csat',
  summary: 'CSAT settings',
  description: `Whether customers are asked for a rating when their conversation is resolved, and the question. Defaults: off, "How would you rate the help you received?". ${seeDecisions}`,
  tags: ['Settings'],
  auth: 'user',
  policy: 'csat_settings.read',
  response: settingsSchema,
  errors: [404],
  handler: async ({ member, deps }) => presentSettings(await loadCsatSettings(deps.db, member.businessId)),
});

export const updateSettings = defineRoute({
  method: 'patch',
  path: '/api/v1/settings/csat',
  summary: 'Change the CSAT settings (owner or admin)',
  description:
    'Omitted fields keep their value. While on, a conversation that becomes `resolved` and was never asked gets the question once, as a `system` message delivered through its channel ' +
    '(not counted against the monthly limit): the website widget shows it with 1–5 buttons; other channels get the question and a link to the public page `/csat/{token}`. ' +
    `Reopening and resolving again asks again while the question is unanswered (the new question replaces the earlier one, whose link stops working); a rated conversation is never asked again. ${seeDecisions}`,
  tags: ['Settings'],
  auth: 'user',
  policy: 'csat_settings.update',
  body: z.object({ enabled: z.boolean().optional(), question: z.string().trim().min(1).max(500).optional() }),
  response: settingsSchema,
  errors: [403, 404],
  handler: async ({ body, member, deps }) => {
    const id = member.businessId;
    const changed = await runCommand(deps, (tx) =>
      changingSettings(
        id,
        'csat',
        () => loadCsatSettings(tx, id),
        () => updateCsatSettings(tx, id, body),
      ),
    );
    return presentSettings(changed.result);
  },
});

const tokenParams = z.object({ token: z.string().max(100).openapi({ description: "The token of the survey link (or of the widget message's `csat`)" }) });
const ratingBody = z.object({
  rating: z.number().int().min(1).max(5).openapi({ description: '1 (very bad) to 5 (very good)' }),
  comment: z.string().trim().max(2000).nullish().openapi({ description: 'Up to 2,000 characters' }),
});

export const rate = defineRoute({
  method: 'post',
  path: '/api/v1/csat/:token',
  summary: 'Rate a conversation (the customer)',
  description:
    'No login: the token is the right to rate this one conversation, once. Unknown token (or one a later question replaced): 404. Rated already: 409 (the first rating stays). ' +
    `The link works ${CSAT_TOKEN_TTL_DAYS} days from when it was asked: 410 after. Ratings are the customer's: a request signed in as a member of the conversation's business (access token or API key) is 403. ` +
    `The rating shows in the conversation (\`csat\`) and sends \`conversation_updated\`. ${seeDecisions}`,
  tags: ['CSAT'],
  auth: 'none',
  publicCors: true,
  params: tokenParams,
  body: ratingBody,
  response: z.object({ rating: z.number().int(), comment: z.string().nullable(), rated_at: z.string() }).openapi('CsatRating'),
  errors: [403, 404, 409, 410],
  handler: async ({ params, body, deps, ctx }) => {
    await refuseMembers(deps, ctx, params.token);
    const { survey } = await runCommand(deps, (tx) => rateCsat(tx, params.token, { rating: body.rating, comment: body.comment }));
    return { rating: survey.rating!, comment: survey.comment, rated_at: survey.rated_at! };
  },
});

/**
 * Ratings count as the customer's: a request carrying the access token (or an API key) of a
 * member of the survey's business is refused (403). A header that is no valid credential is
 * ignored (the widget sends none; the page cannot).
 */
async function refuseMembers(deps: Parameters<Parameters<typeof defineRoute>[0]['handler']>[0]['deps'], ctx: Context, token: string): Promise<void> {
  if (!ctx.get('Authorization')) return;
  const survey = await findCsatSurvey(deps.db, token);
  if (!survey) return;
  const caller = await authenticate(ctx, deps.db, deps.config.jwtSecret, { apiKeys: true }).catch(() => null);
  if (caller?.member?.businessId === survey.business_id) throw forbidden("Members of the business cannot rate its conversations: ratings are the customer's");
}

function sendPage(ctx: Parameters<Parameters<typeof defineRoute>[0]['handler']>[0]['ctx'], status: number, state: PageState) {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', csatPagePolicy);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.body = csatPage(state);
}

export const page = defineRoute({
  method: 'get',
  path: '/csat/:token',
  summary: 'The public rating page (HTML)',
  description: `For customers, linked from the message sent on resolution: the question, 1–5 and a comment, as a plain form posting to the same address (works without JavaScript). Unknown token: 404 page. ${seeDecisions}`,
  tags: ['CSAT'],
  auth: 'none',
  params: tokenParams,
  responseContentType: 'text/html',
  response: z.string(),
  errors: [404, 410],
  handler: async ({ params, deps, ctx }) => {
    const survey = await findCsatSurvey(deps.db, params.token);
    if (!survey) return sendPage(ctx, 404, { kind: 'unknown' });
    if (survey.rating !== null)
      return sendPage(ctx, 200, { kind: 'rated', question: survey.question, business: survey.business_name, rating: survey.rating, thanks: false });
    if (csatLinkExpired(survey)) return sendPage(ctx, 410, { kind: 'expired', question: survey.question, business: survey.business_name });
    sendPage(ctx, 200, { kind: 'form', token: params.token, question: survey.question, business: survey.business_name });
  },
});

const formBody = koaBody({ json: false, urlencoded: true, text: false, multipart: false, formLimit: '16kb', parsedMethods: ['POST' as never] });

export const postPage = defineRoute({
  method: 'post',
  path: '/csat/:token',
  summary: 'Send a rating from the public page (HTML form)',
  description: `The page's form (\`application/x-www-form-urlencoded\`: \`rating\` 1–5, \`comment\` optional). Answers with the page: thanks (200), the form again with what is wrong (422), already rated (409), link expired (410), unknown token (404). ${seeDecisions}`,
  tags: ['CSAT'],
  auth: 'none',
  params: tokenParams,
  bodyParser: formBody,
  responseContentType: 'text/html',
  response: z.string(),
  errors: [404, 409, 410],
  handler: async ({ params, deps, ctx }) => {
    const form = ((ctx.request as { body?: Record<string, unknown> }).body ?? {}) as Record<string, unknown>;
    const survey = await findCsatSurvey(deps.db, params.token);
    if (!survey) return sendPage(ctx, 404, { kind: 'unknown' });
    const rating = typeof form.rating === 'string' && /^[1-5]$/.test(form.rating) ? Number(form.rating) : null;
    const typed = typeof form.comment === 'string' ? form.comment : null;
    // Cut at 2,000 code units; a pair cut in two becomes U+FFFD rather than a refusal of the customer's text.
    const comment = typed === null ? null : typed.slice(0, 2000).toWellFormed();
    if (survey.rating !== null)
      return sendPage(ctx, 409, { kind: 'rated', question: survey.question, business: survey.business_name, rating: survey.rating, thanks: false });
    if (csatLinkExpired(survey)) return sendPage(ctx, 410, { kind: 'expired', question: survey.question, business: survey.business_name });
    // The form is not JSON, so the input guard did not see it: text PostgreSQL cannot store is refused here (422, naming the field).
    const problem =
      rating === null
        ? 'Please choose a rating from 1 to 5.'
        : typed !== null && (typed.includes('\u0000') || !typed.isWellFormed())
          ? 'The comment contains a character that cannot be stored (NUL or an unpaired surrogate): please remove it.'
          : null;
    if (rating === null || problem) {
      return sendPage(ctx, 422, { kind: 'form', token: params.token, question: survey.question, business: survey.business_name, error: problem! });
    }
    try {
      const { survey: rated } = await runCommand(deps, (tx) => rateCsat(tx, params.token, { rating, comment }));
      sendPage(ctx, 200, { kind: 'rated', question: rated.question, business: rated.business_name, rating: rated.rating!, thanks: true });
    } catch (error) {
      if (error instanceof HttpError && error.status === 410)
        return sendPage(ctx, 410, { kind: 'expired', question: survey.question, business: survey.business_name });
      if (error instanceof HttpError && error.status === 409) {
        const again = await findCsatSurvey(deps.db, params.token);
        return sendPage(ctx, 409, { kind: 'rated', question: survey.question, business: survey.business_name, rating: again?.rating ?? rating, thanks: false });
      }
      throw error;
    }
  },
});

export default [readSettings, updateSettings, rate, page, postPage];
