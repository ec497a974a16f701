/**
 * The public CSAT page (`/csat/{token}`): a plain HTML form that works without JavaScript. It
 * posts (urlencoded) to the same address; the answer is the page again with a thank-you, or what
 * went wrong. No script at all; the Content-Security-Policy allows the one inline style and the
 * form posting to this origin only.
 */
import { createHash } from 'node:crypto';

const style = `body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1d1d2b;background:#f6f5fb}
main{max-width:480px;margin:0 auto;padding:32px 20px}
h1{font-size:22px;line-height:1.3;margin:0 0 4px}p.by{color:#5b5b70;margin:0 0 24px}
fieldset{border:0;padding:0;margin:0 0 16px;display:flex;gap:8px;flex-wrap:wrap}
legend{font-weight:600;margin-bottom:8px;padding:0}
label.r{flex:1 1 48px;min-width:48px}label.r input{position:absolute;opacity:0}
label.r span{display:block;text-align:center;padding:12px 0;border:2px solid #d5d0ec;border-radius:10px;background:#fff;font-size:20px;cursor:pointer}
label.r input:checked+span{border-color:#7650ff;background:#efeaff}label.r input:focus-visible+span{outline:3px solid #7650ff}
.scale{display:flex;justify-content:space-between;color:#5b5b70;font-size:13px;margin:-8px 0 16px}
textarea{width:100%;box-sizing:border-box;min-height:96px;font:inherit;padding:8px;border:1px solid #cfcbe0;border-radius:8px}
button{margin-top:16px;width:100%;padding:12px;font:inherit;font-weight:600;color:#fff;background:#7650ff;border:0;border-radius:10px;cursor:pointer}
.note{padding:12px 16px;border-radius:10px;background:#fff;border:1px solid #e3e0f0}.err{border-color:#e5484d;color:#b42318}`;

const styleHash = `'sha256-${createHash('sha256').update(style).digest('base64')}'`;

export const csatPagePolicy = [
  "default-src 'none'",
  `style-src ${styleHash}`,
  'img-src data:',
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const shell = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<style>${style}</style></head>
<body><main>${body}</main></body></html>`;

export type PageState =
  | { kind: 'form'; token: string; question: string; business: string; error?: string }
  | { kind: 'rated'; question: string; business: string; rating: number; thanks: boolean }
  | { kind: 'expired'; question: string; business: string }
  | { kind: 'unknown' };

const ratingLabels = ['', 'Very bad', 'Bad', 'OK', 'Good', 'Very good'];

export function csatPage(state: PageState): string {
  if (state.kind === 'unknown') {
    return shell('Survey not found', '<h1>Survey not found</h1><p class="note err">This link is not valid. It may have been mistyped.</p>');
  }
  const head = `<h1>${escapeHtml(state.question)}</h1><p class="by">${escapeHtml(state.business)}</p>`;
  if (state.kind === 'expired') {
    return shell('Link expired', `${head}<p class="note err" role="status">This rating link has expired. Thank you all the same!</p>`);
  }
  if (state.kind === 'rated') {
    const text = state.thanks ? 'Thank you for your feedback!' : 'This conversation was rated already. Thank you!';
    return shell('Thank you', `${head}<p class="note" role="status">${text} Your rating: ${state.rating} of 5 (${ratingLabels[state.rating]}).</p>`);
  }
  const options = [1, 2, 3, 4, 5]
    .map((n) => `<label class="r"><input type="radio" name="rating" value="${n}" required aria-label="${n} of 5, ${ratingLabels[n]}"><span>${n}</span></label>`)
    .join('');
  const error = state.error ? `<p class="note err" role="alert">${escapeHtml(state.error)}</p>` : '';
  return shell(
    state.question,
    `${head}${error}<form method="post" action="/csat/${escapeHtml(state.token)}">
<fieldset><legend>Your rating, 1 (very bad) to 5 (very good)</legend>${options}</fieldset>
<div class="scale"><span>1 · Very bad</span><span>5 · Very good</span></div>
<label for="comment">Anything you want to add? (optional)</label>
<textarea id="comment" name="comment" maxlength="2000"></textarea>
<button type="submit">Send rating</button></form>`,
  );
}
