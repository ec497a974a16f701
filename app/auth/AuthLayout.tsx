/** The frame of the signed-out pages: the brand beside a single card. */
import type { ComponentChildren } from 'preact';
import { Logo } from '../ui/Logo.tsx';

export function AuthLayout({ title, subtitle, children }: { title: string; subtitle?: string; children: ComponentChildren }) {
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
