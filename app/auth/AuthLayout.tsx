/** The frame of the signed-out pages: the brand beside a single card. */
import type { ComponentChildren } from 'preact';
import { Logo } from '../ui/Logo.tsx';
import { usePageTitle } from '../shell/title.ts';

/** `tab`: the page's name in the tab's title, when the heading says more ("Sign in to Parley"). */
export function AuthLayout({ title, tab, subtitle, children }: { title: string; tab?: string; subtitle?: string; children: ComponentChildren }) {
  usePageTitle(tab ?? title);
  return (
    <div class="auth-page">
      <aside class="auth-brand">
        <Logo />
        <p class="auth-pitch">
          Every customer conversation — widget, e-mail, WhatsApp, Telegram, Instagram, X and SMS — in one fast inbox your whole team shares.
        </p>
      </aside>
      <main class="auth-main">
        <div class="auth-card">
          <div class="auth-mobile-logo">
            <Logo />
          </div>
          <h1>{title}</h1>
          {subtitle && <p class="muted">{subtitle}</p>}
          {children}
        </div>
      </main>
    </div>
  );
}
