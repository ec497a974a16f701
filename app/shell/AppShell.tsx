/** The signed-in frame: navigation (a sidebar, a bottom bar on phones) around the current page. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { onLive, onResync } from '../live.ts';
import { currentLocation, linkClick } from '../router.ts';
import { can, loadMembers, me, signOut } from '../session.ts';
import { Logo } from '../ui/Logo.tsx';
import { Inbox } from '../inbox/Inbox.tsx';
import { Settings } from '../settings/Settings.tsx';
import { Analytics } from '../analytics/Analytics.tsx';
import { Reports } from '../reports/Reports.tsx';
import { Customers } from '../customers/Customers.tsx';
import { Availability } from './Availability.tsx';
import { askForNotifications, canAskForNotifications, followNotifications } from './notifications.ts';
import { pageTitle } from './title.ts';
import { followSearchKeys, SearchDialog, searchOpen } from '../search/SearchDialog.tsx';
import { Mentions } from '../mentions/Mentions.tsx';
import { followMentions, unreadMentions } from '../mentions/store.ts';
import type { Action } from '../types.ts';

/**
 * The destinations; one with an `action` shows only to those who `can` do it. `wide` ones stay
 * out of the phone's bottom bar (it fits five): Reports is reached from Analytics there.
 */
const NAV: { to: string; label: string; icon: string; action?: Action; wide?: boolean }[] = [
  { to: '/app/inbox', label: 'Inbox', icon: 'M3 13h5l2 3h4l2-3h5 M5 5h14l2 8v6H3v-6z' },
  { to: '/app/mentions', label: 'Mentions', icon: 'M16 12a4 4 0 1 1-8 0 4 4 0 0 1 8 0z M16 12v1.5a2.5 2.5 0 0 0 5 0V12a9 9 0 1 0-3.5 7.1' },
  {
    to: '/app/customers',
    label: 'Customers',
    icon: 'M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8z M2 21v-1a6 6 0 0 1 12 0v1 M16 3.5a4 4 0 0 1 0 7.5 M22 21v-1a6 6 0 0 0-4-5.6',
    action: 'customers.read',
  },
  { to: '/app/analytics', label: 'Analytics', icon: 'M4 20V10 M10 20V4 M16 20v-7 M22 20H2' },
  { to: '/app/reports', label: 'Reports', icon: 'M6 3h9l4 4v14H6z M14 3v5h5 M9 17v-3 M12 17v-6 M15 17v-4', action: 'reports.read', wide: true },
  {
    to: '/app/settings',
    label: 'Settings',
    icon: 'M12 8a4 4 0 1 0 0 8 4 4 0 0 0 0-8z M4 12h2 M18 12h2 M12 4v2 M12 18v2 M6.3 6.3l1.4 1.4 M16.3 16.3l1.4 1.4 M6.3 17.7l1.4-1.4 M16.3 7.7l1.4-1.4',
  },
];

/**
 * Says the new page's name to screen readers when the app moves to another page or conversation
 * without a page load (a full load announces the document's title by itself); not on the first.
 */
function RouteAnnouncer() {
  const [said, setSaid] = useState('');
  const first = useRef(true);
  const title = pageTitle.value;
  useEffect(() => {
    if (!title) return;
    // The first page's name is the loaded document's title: already said.
    if (first.current) first.current = false;
    else setSaid(title);
  }, [title]);
  return (
    <div class="visually-hidden" role="status" aria-live="polite" data-route-announcer="">
      {said}
    </div>
  );
}

/** Where "Not now" on the e-mail banner is remembered: for this tab, until it is closed. */
const VERIFY_LATER_KEY = 'parley.verify-banner.later';

function VerifyBanner() {
  const [sent, setSent] = useState(false);
  const userId = me.value?.user.id;
  const [later, setLater] = useState(() => sessionStorage.getItem(VERIFY_LATER_KEY) === userId);
  if (me.value?.user.is_verified || (later && userId)) return null;
  const notNow = () => {
    try {
      if (userId) sessionStorage.setItem(VERIFY_LATER_KEY, userId);
    } catch {
      // Refused: hidden for this page only.
    }
    setLater(true);
  };
  return (
    <div class="banner" role="status">
      Confirm your e-mail address: we sent a link to <strong>{me.value?.user.email}</strong>.{' '}
      {sent ? (
        'Sent again.'
      ) : (
        <button class="link" onClick={() => api.post('/api/v1/auth/verify-email/send').then(() => setSent(true))}>
          Email me the link again
        </button>
      )}{' '}
      <button class="link banner-later" onClick={notNow}>
        Not now
      </button>
    </div>
  );
}

export function AppShell() {
  const path = currentLocation.value.path;
  const [askNotify, setAskNotify] = useState(canAskForNotifications());
  useEffect(() => followNotifications(), []);
  useEffect(() => followSearchKeys(), []);
  useEffect(() => followMentions(), []);
  // Teammates' availability changes live (the assignee menu and the team page use it), and is
  // read again whenever the live connection comes up (a change before it reached no socket).
  useEffect(() => {
    const refresh = () => void loadMembers().catch(() => {}); // kept as shown; the next event or connect reads again
    const stops = [onLive((e) => e.name === 'agent_status_changed' && refresh()), onResync(refresh)];
    return () => stops.forEach((stop) => stop());
  }, []);
  const page = path.startsWith('/app/settings') ? (
    <Settings />
  ) : path.startsWith('/app/analytics') ? (
    <Analytics />
  ) : path.startsWith('/app/reports') && can('reports.read') ? (
    <Reports />
  ) : path.startsWith('/app/customers') ? (
    <Customers />
  ) : path.startsWith('/app/mentions') ? (
    <Mentions />
  ) : (
    <Inbox />
  );
  const unread = unreadMentions.value;
  return (
    <div class="shell">
      <nav class="sidebar" aria-label="Main">
        <div class="sidebar-logo">
          <Logo small />
        </div>
        <span class="workspace-name" title={me.value?.business?.name}>
          {me.value?.business?.name}
        </span>
        <ul class="nav-list">
          {NAV.filter((item) => !item.action || can(item.action)).map((item) => (
            <li class={item.wide ? 'nav-wide-only' : undefined}>
              <a
                href={item.to}
                class={`nav-item${path.startsWith(item.to) ? ' active' : ''}`}
                aria-current={path.startsWith(item.to) ? 'page' : undefined}
                onClick={(e) => linkClick(e, item.to)}
              >
                <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
                  <path d={item.icon} fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round" />
                </svg>
                <span>{item.label}</span>
                {item.to === '/app/mentions' && unread > 0 && (
                  <span class="nav-badge" aria-label={`${unread} unread`}>
                    {unread > 99 ? '99+' : unread}
                  </span>
                )}
              </a>
            </li>
          ))}
          {can('search.read') && (
            <li>
              <button
                class="nav-item nav-search"
                aria-label="Search all history"
                aria-keyshortcuts="/ Control+K"
                title="Search (/ or Ctrl+K)"
                onClick={() => (searchOpen.value = true)}
              >
                <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
                  <path
                    d="M11 4a7 7 0 1 0 0 14 7 7 0 0 0 0-14z M20 20l-4-4"
                    fill="none"
                    stroke="currentColor"
                    stroke-width="1.8"
                    stroke-linecap="round"
                    stroke-linejoin="round"
                  />
                </svg>
                <span>Search</span>
              </button>
            </li>
          )}
        </ul>
        <div class="sidebar-foot">
          {askNotify && (
            <button class="link small" onClick={() => askForNotifications().then(() => setAskNotify(false))}>
              Turn on notifications
            </button>
          )}
          <Availability />
          <div class="me-line">
            <span class="me-name" title={me.value?.user.email}>
              {me.value?.user.full_name}
            </span>
            <button class="link small" onClick={() => signOut()}>
              Sign out
            </button>
          </div>
        </div>
      </nav>
      <main class="content">
        <VerifyBanner />
        {page}
      </main>
      <RouteAnnouncer />
      <SearchDialog />
    </div>
  );
}
