/** Which pages may use a widget: its domain and subdomains by Origin (core/domain/visitors/widget-origins.ts). */
import test from 'ava';
import { domainHost, originAllowed } from '../core/domain/visitors/widget-origins.ts';

const prod = { allowLocalhost: false };
const dev = { allowLocalhost: true };

test('domainHost: only the host of what the owner typed counts', (t) => {
  t.is(domainHost('Shop.Example.com'), 'shop.example.com');
  t.is(domainHost('https://shop.example.com:8443/help?x=1'), 'shop.example.com');
  t.is(domainHost('shop.example.com.'), 'shop.example.com');
  t.is(domainHost('*.example.com'), 'example.com');
});

test('the domain and its subdomains, on any scheme or port; nothing else', (t) => {
  for (const origin of ['https://example.com', 'http://example.com:8080', 'https://shop.example.com', 'https://a.b.example.com']) {
    t.true(originAllowed('example.com', origin, prod), origin);
  }
  for (const origin of ['https://evil.com', 'https://notexample.com', 'https://example.com.evil.com', 'null', 'file:///tmp/x.html', 'garbage', 'https://com']) {
    t.false(originAllowed('example.com', origin, prod), origin);
  }
  t.false(originAllowed('shop.example.com', 'https://example.com', prod), 'a parent domain is not covered');
});

test('`*` allows every site; no Origin header is always allowed', (t) => {
  t.true(originAllowed('*', 'https://anything.example', prod));
  t.true(originAllowed('*', 'null', prod));
  t.true(originAllowed('example.com', undefined, prod));
});

test('localhost pages only outside production', (t) => {
  for (const origin of ['http://localhost:5173', 'http://127.0.0.1:8080', 'http://[::1]:3000', 'http://app.localhost']) {
    t.true(originAllowed('example.com', origin, dev), origin);
    t.false(originAllowed('example.com', origin, prod), origin);
  }
});
