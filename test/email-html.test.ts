/**
 * Customer HTML mail made safe (lib/email-html.ts): what a hostile or tracking mail carries never
 * survives, formatting does, remote images stay blocked until armed, and a reply's text becomes
 * escaped HTML.
 */
import test from 'ava';
import { sanitizeEmailHtml, showRemoteImages, textToHtml } from '../lib/email-html.ts';

const clean = async (html: string) => {
  const result = await sanitizeEmailHtml(html);
  if (!result) throw new Error('nothing kept');
  return result;
};

test('scripts, styles, frames, forms and their content are removed; formatting stays', async (t) => {
  const { html } = await clean(
    '<html><head><title>Secret title</title><style>body{display:none}</style><script>steal()</script></head>' +
      '<body><p><b>Order</b> <i>7</i></p><iframe src="https://evil.test/"></iframe><object data="x.swf"></object>' +
      '<form action="https://evil.test/"><input name="password"><button>Go</button></form><noscript>ns</noscript><svg><script>x()</script></svg>' +
      '<table><tr><td colspan="2">cell</td></tr></table></body></html>',
  );
  t.false(/script|steal|<style|display:none|Secret title|iframe|object|<form|<input|password|ns<|svg/i.test(html), html);
  t.true(html.includes('<p><b>Order</b> <i>7</i></p>'));
  t.true(html.includes('<td colspan="2">cell</td>'));
});

test('event handlers and javascript:/data: links are removed; safe links open in a new tab without referrer', async (t) => {
  const { html } = await clean(
    '<p onclick="evil()" onmouseover="evil()">Hi</p><img src="x" onerror="evil()">' +
      '<a href="javascript:alert(1)">one</a><a href="JaVaScRiPt:alert(1)">two</a><a href=" javascript:alert(1)">three</a>' +
      '<a href="data:text/html;base64,PHNjcmlwdD4=">four</a><a href="vbscript:x">five</a>' +
      '<a href="https://acme.test/a?b=1&c=2" onclick="x()">good</a><a href="mailto:help@acme.test">mail</a>',
  );
  t.false(/onclick|onmouseover|onerror|evil|javascript|vbscript|data:text/i.test(html), html);
  t.true(html.includes('<a href="https://acme.test/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer nofollow">good</a>'));
  t.true(html.includes('href="mailto:help@acme.test"'));
  t.regex(html, /<a target="_blank" rel="noopener noreferrer nofollow">one<\/a>/);
});

test('CSS that could load or run anything is dropped; harmless styles stay', async (t) => {
  const { html } = await clean(
    '<p style="color: red; background-image: url(https://track.test/bg.png); width: expression(alert(1)); position: fixed">styled</p><div style="background:url(https://x.test/)">b</div>',
  );
  t.true(html.includes('<p style="color:red">styled</p>'), html);
  t.false(/url\(|expression|position|track\.test|x\.test/.test(html), html);
});

test('remote images are blocked (no src) until armed; tracking pixels are gone for good; cid: images become a placeholder', async (t) => {
  const result = await clean(
    '<p>Photo:</p><img src="https://cdn.customer.test/broken.jpg" alt="Broken lid" width="300">' +
      '<img src="https://track.test/open.gif" width="1" height="1" alt="">' +
      '<img src="https://track.test/hidden.gif" style="display:none">' +
      '<img src="http://track.test/zero.gif" height="0">' +
      '<img src="cid:part1@mail" alt="chart">' +
      '<img src="//cdn.test/proto-relative.png">' +
      '<img src="data:image/png;base64,iVBORw0KGgo=" alt="inline">' +
      '<img data-parley-src="https://forged.test/x.png">',
  );
  t.is(result.remoteImages, 1);
  t.false(/\ssrc="https?:/.test(result.html), 'no remote image loads by default');
  t.false(/track\.test|forged\.test|proto-relative/.test(result.html), result.html);
  t.true(result.html.includes('data-parley-src="https://cdn.customer.test/broken.jpg"'));
  t.true(result.html.includes('<span class="parley-inline-image">[image: chart]</span>'));
  t.true(result.html.includes('src="data:image/png;base64,iVBORw0KGgo="'), 'embedded images need no request');

  const armed = showRemoteImages(result.html);
  t.true(armed.includes('src="https://cdn.customer.test/broken.jpg"'));
  t.false(armed.includes('data-parley-src'));
  t.false(/track\.test/.test(armed), 'tracking pixels stay gone when images are shown');
});

test('arming images only touches attributes inside <img>: text that looks like one stays text', async (t) => {
  const { html } = await clean('<p>data-parley-src="https://x.test/" &lt;img data-parley-src="https://y.test/"&gt;</p>');
  t.is(showRemoteImages(html), html);
});

test('empty, whitespace-only and oversized HTML keep nothing (the plain text is what remains)', async (t) => {
  t.is(await sanitizeEmailHtml('   '), null);
  t.is(await sanitizeEmailHtml('<script>only()</script>'), null);
  t.is(await sanitizeEmailHtml(`<p>${'a'.repeat(3 * 1024 * 1024)}</p>`), null);
});

test("a reply's text becomes escaped HTML with paragraphs, line breaks and links", (t) => {
  t.is(
    textToHtml('Hi <Ada> & co,\nsee https://acme.test/t?x=1&y=2.\n\nBye'),
    '<p>Hi &lt;Ada&gt; &amp; co,<br>\nsee <a href="https://acme.test/t?x=1&amp;y=2">https://acme.test/t?x=1&amp;y=2</a>.</p>\n<p>Bye</p>',
  );
  t.false(textToHtml('<script>alert(1)</script>').includes('<script>'));
});
