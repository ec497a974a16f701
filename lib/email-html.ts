/**
 * E-mail HTML, both ways (docs/decisions.md#e-mail-in-depth).
 *
 * Inbound: a customer's HTML part is sanitized ONCE, when the mail is parsed, with sanitize-html
 * (an allow-list parser built on htmlparser2, maintained for a decade and used by large CMSs):
 * only formatting tags and attributes survive; scripts, styles, forms, frames, event handlers,
 * `javascript:`/`data:` links and CSS that could load anything (`url(`, `expression(`) are gone.
 * Remote images are kept DISARMED: `<img data-parley-src="https://…">` has no `src`, so nothing
 * is fetched (no tracking, no leaked IP) until the agent asks: showRemoteImages() turns exactly
 * those attributes, which only this module writes, back into `src`. Tracking pixels (1×1, or
 * hidden) are dropped altogether; inline `cid:` images become a placeholder text.
 *
 * Outbound: a plain-text reply becomes the HTML alternative of a multipart mail (textToHtml).
 */
import { lazyModule } from './lazy-module.ts';

/** Larger HTML parts are not kept (the plain text still is). */
export const MAX_SOURCE_HTML = 2 * 1024 * 1024;
/** Sanitized HTML kept at most this long; longer is dropped (the plain text still is). */
export const MAX_SANITIZED_HTML = 512 * 1024;

/** The attribute holding a blocked remote image's URL. */
const REMOTE_SRC = 'data-parley-src';
/** Marks a tracking pixel for removal. */
const DROP = 'data-parley-drop';

const sanitizer = lazyModule(() => import('sanitize-html'));

export type SanitizedHtml = { html: string; remoteImages: number };

/** A CSS value without anything that loads or runs: words, numbers, units, colours, rgb(). */
const SAFE_CSS = /^(?:[#\w\s.,%!-]|rgba?\([\d\s.,%]+\))+$/;
const cssProperties = [
  'color',
  'background-color',
  'text-align',
  'text-decoration',
  'font-size',
  'font-weight',
  'font-style',
  'font-family',
  'line-height',
  'padding',
  'padding-left',
  'padding-right',
  'padding-top',
  'padding-bottom',
  'margin',
  'margin-left',
  'margin-right',
  'margin-top',
  'margin-bottom',
  'border',
  'border-collapse',
  'border-color',
  'border-width',
  'border-style',
  'width',
  'max-width',
  'height',
  'vertical-align',
  'white-space',
];

const pixelSize = (value: string | undefined) => {
  if (value === undefined) return undefined;
  const n = Number.parseFloat(value);
  return Number.isFinite(n) ? n : undefined;
};

/** 1×1 (or 0-sized) and hidden images: trackers, never shown. */
function isTracker(attribs: Record<string, string>): boolean {
  const width = pixelSize(attribs.width);
  const height = pixelSize(attribs.height);
  if ((width !== undefined && width <= 2) || (height !== undefined && height <= 2)) return true;
  const style = (attribs.style ?? '').toLowerCase().replace(/\s+/g, '');
  return /display:none|visibility:hidden|(?:^|;)(?:width|height):[01]px/.test(style);
}

/** The customer's HTML, safe to show; null when there is none worth keeping. */
export async function sanitizeEmailHtml(source: string): Promise<SanitizedHtml | null> {
  if (source.trim() === '' || source.length > MAX_SOURCE_HTML) return null;
  const { default: sanitizeHtml } = await sanitizer.load();
  let remoteImages = 0;
  const html = sanitizeHtml(source, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'font', 'center', 'big'],
    // Dropped with their content (the defaults keep the text of unknown tags).
    nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'head', 'xml', 'template', 'iframe', 'object', 'svg', 'math'],
    disallowedTagsMode: 'discard',
    allowedAttributes: {
      a: ['href', 'title', 'target', 'rel'],
      img: ['alt', 'title', 'width', 'height', 'src', REMOTE_SRC, DROP],
      span: ['class'],
      font: ['color', 'size', 'face'],
      table: ['width', 'border', 'cellpadding', 'cellspacing', 'align', 'bgcolor'],
      td: ['width', 'colspan', 'rowspan', 'align', 'valign', 'bgcolor'],
      th: ['width', 'colspan', 'rowspan', 'align', 'valign', 'bgcolor'],
      tr: ['align', 'valign', 'bgcolor'],
      p: ['align'],
      div: ['align'],
      '*': ['style', 'dir', 'lang'],
    },
    allowedStyles: { '*': Object.fromEntries(cssProperties.map((p) => [p, [SAFE_CSS]])) },
    allowedSchemes: ['http', 'https', 'mailto', 'tel'],
    allowedSchemesByTag: { img: ['data'] },
    allowProtocolRelative: false,
    allowedClasses: { span: ['parley-inline-image'] },
    exclusiveFilter: (frame) => frame.tag === 'img' && frame.attribs[DROP] === '1',
    transformTags: {
      a: (tagName, attribs) => ({
        tagName,
        attribs: {
          ...(attribs.href ? { href: attribs.href } : {}),
          ...(attribs.title ? { title: attribs.title } : {}),
          target: '_blank',
          rel: 'noopener noreferrer nofollow',
        },
      }),
      img: (tagName, attribs): { tagName: string; attribs: Record<string, string>; text?: string } => {
        const src = (attribs.src ?? '').trim();
        const kept: Record<string, string> = {};
        for (const key of ['alt', 'title', 'width', 'height', 'style']) if (attribs[key] !== undefined) kept[key] = attribs[key];
        // Marked here, removed by exclusiveFilter.
        if (isTracker(attribs)) return { tagName, attribs: { [DROP]: '1' } };
        if (/^https?:\/\//i.test(src)) {
          remoteImages += 1;
          return { tagName, attribs: { ...kept, [REMOTE_SRC]: src } };
        }
        if (/^data:image\/(?:png|gif|jpe?g|webp);base64,[a-z0-9+/=\s]+$/i.test(src)) return { tagName, attribs: { ...kept, src } };
        // cid: (a MIME part of the mail) and anything else: a placeholder naming the image.
        return { tagName: 'span', attribs: { class: 'parley-inline-image' }, text: `[image${attribs.alt ? `: ${attribs.alt}` : ''}]` };
      },
    },
  }).trim();
  if (html === '' || html.length > MAX_SANITIZED_HTML) return null;
  return { html, remoteImages };
}

/**
 * Sanitized HTML with its blocked remote images armed again (the agent asked to see them). Only
 * attributes inside an `<img>` tag change: attribute values are entity-escaped by the sanitizer,
 * so a tag ends at the first `>`.
 */
export function showRemoteImages(html: string): string {
  return html.replace(/<img\b[^>]*>/g, (tag) => tag.replace(` ${REMOTE_SRC}="`, ' src="'));
}

export const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Plain text → HTML: escaped, paragraphs at blank lines, line breaks kept, http(s) links clickable. */
export function textToHtml(text: string): string {
  const linked = (line: string) => escapeHtml(line).replace(/\bhttps?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)]/g, (url) => `<a href="${url}">${url}</a>`);
  return text
    .replace(/\r\n/g, '\n')
    .trim()
    .split(/\n{2,}/)
    .map((paragraph) => `<p>${paragraph.split('\n').map(linked).join('<br>\n')}</p>`)
    .join('\n');
}
