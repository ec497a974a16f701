/**
 * The tab's title names the page (WCAG 2.4.2): "Team · Settings · Parley", "Dana Doe · Inbox ·
 * Parley", with "(2)" in front while new customer messages wait in a hidden tab
 * (notifications.ts). Each page sets its part with usePageTitle; AppShell also says it aloud to
 * screen readers when it changes within the app (RouteAnnouncer).
 */
import { effect, signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';

/** What the current page calls itself; '' for none. */
export const pageTitle = signal('');
/** New customer messages since the tab was hidden. */
export const unseenMessages = signal(0);

effect(() => {
  const unseen = unseenMessages.value;
  document.title = `${unseen ? `(${unseen}) ` : ''}${pageTitle.value ? `${pageTitle.value} · ` : ''}Parley`;
});

/** Sets the page's part of the title while the calling page is shown. One page component calls it per page. */
export function usePageTitle(title: string): void {
  useEffect(() => {
    pageTitle.value = title;
  }, [title]);
}
